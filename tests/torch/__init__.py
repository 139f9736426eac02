"""The drop-in PyTorch layers' tests (a package, so that pytest never takes this folder for `torch`)."""
