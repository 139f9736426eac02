"""The test suite (a package: its folders are never taken for the packages they test, e.g. `torch`)."""
