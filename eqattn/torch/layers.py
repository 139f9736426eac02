"""Equivariant and vanilla multi-head attention as ``torch.nn.Module`` s (SPEC §1, §3).

Conventions (both layers)
-------------------------
* Inputs are batch-first ``(batch, tokens, dim V)`` (or unbatched ``(tokens, dim V)``); token
  rows are vectors, so ``g`` acts by ``X -> X rho(g)^T`` and equivariance reads
  ``f(X rho(g)^T) = f(X) rho(g)^T``.
* SPEC §1 exactly: no biases, no ``1/sqrt(d)`` (it is absorbed into ``M``), so
  ``scaled_dot_product_attention`` is called with ``scale=1.0``; the output is the sum over
  heads of ``W_O^h`` applied to the head outputs.
* ``attn_mask`` is passed to ``torch.nn.functional.scaled_dot_product_attention`` and follows
  its rules: a bool mask marks the pairs that TAKE PART (True = attend; the opposite of
  ``nn.MultiheadAttention``), a float mask is added to the scores; it must broadcast to
  ``(batch, heads, tokens, tokens)`` — e.g. ``(tokens, tokens)`` or ``(batch, 1, tokens, tokens)``.
  A query whose keys are all masked out gets what SDPA gives (zeros with torch 2.13 on CPU;
  other backends/versions may give NaN). Masks act on token pairs, not on V, so any mask
  keeps the layer equivariant. ``is_causal=True`` is the SDPA causal mask.
* Heads of one head dimension go through ONE batched SDPA call; uneven dimensions are bucketed
  (:class:`eqattn.numeric.expansion.HeadLayout`: neighbouring dims are merged, padding to the
  larger, while that costs less than another call). Zero rows in ``W_Q, W_K, W_V`` and zero
  columns in ``W_O`` change neither the scores nor the outputs. A 4-D mask with one slice per
  head (heads in orbit order) is cut per bucket.
* dtypes float32 / float64 / bfloat16 (tested; float16 runs where SDPA supports it), CPU
  and CUDA. The bases of the equivariant layer are kept as float64 master buffers
  (persistent, in the ``state_dict``) plus working copies in the module dtype;
  ``layer.double()`` after building in float32 therefore gives float64-exact bases, not
  float32 ones upcast, and a ``state_dict`` round trip never loses basis precision.

Cost
----
A design from the catalog (:meth:`EquivariantAttention.from_design`) takes the *block path*:
Hom_K(V, W) is held by its isotypic blocks (:class:`eqattn.numeric.isotypic.HomBlocks`) and
each forward builds the per-head weights in two structured steps
(:mod:`eqattn.numeric.expansion`): one sparse map from all coordinates to every orbit's
``Wq_i`` (one gather and one ``index_add``), then ``rho(a)^T`` for the cosets by one small
product per irrep block of V. Memory and time grow like ``dim V · Σ dim W``; no
``(p, dim W, dim V)`` basis exists (the D4 96 x regular, H = 12, d = 64 optimum builds in
seconds). In a user's basis (``rep_matrices=`` / ``basis=``) the input is rotated into the
design's coordinates and the output back (two ``n x n`` products per call).

Realisations given by explicit bases (:func:`eqattn.torch.realize_from_matrices`, or any object
with dense ``hom_in``/``hom_out``/``cosets``) take the *dense path*: the basis is replaced by
a canonical orthonormal basis of the same space (:func:`canonical_basis`; ``canonical_basis=False``
keeps the given one), applied with ``index_add`` when sparse, and consecutive identical orbits
are expanded by one matmul.

``torch.compile`` and ``torch.jit.script``
-----------------------------------------
``torch.compile`` works (tested on CPU with the inductor backend, ``fullgraph=True``, forward
and backward; the first compile takes ~20 s on 2 CPU cores); the weight expansion is traced
into the graph. ``torch.jit.script`` works for the block path (layers from a design): the
expansion's fixed data are flat buffers with integer offsets, so the scripted module
(savable with ``torch.jit.save``) expands the weights each call; the reuse of expanded
weights without autograd (:mod:`eqattn.torch.reuse`) is eager-only. The dense path
(explicit bases) is marked unused for TorchScript: a scripted dense layer raises when called.
"""

from __future__ import annotations

import math
from typing import Any, Sequence, Tuple

import numpy as np
import torch
from torch import nn

from eqattn.errors import whole_number
from eqattn.numeric.expansion import HeadLayout, coset_groups, group_head_order

from .dense import _expand_run, _Orbit
from .design_json import design_from_json
from .exact import ExactBuffers
from .vanilla import VanillaAttention, _attend, _check_device, _check_factory, _check_tokens, _gen_device
from .expansion import BlockExpansion, BlockOrbit
from .reuse import WeightCache
from .weight_coordinates import basis_coordinates, block_coordinates

__all__ = ["EquivariantAttention", "VanillaAttention"]

class EquivariantAttention(ExactBuffers):
    """The G-equivariant attention layer of a design (SPEC §3).

    ``realized`` has the fields of ``eqattn.numeric.RealizedDesign`` (docs/contracts.md):
    ``dim_v``, ``group_matrices (|G|, n, n)`` and ``orbits``, each with ``head_dim``,
    ``cosets (index, n, n)``, ``hom_in (p, dim W, n)``, ``hom_out (p, n, dim W)``.

    Parameters: per orbit ``i`` the coordinates ``orbits.i.theta_q/k/v/o`` (length ``p_i``) of
    ``Wq, Wk, Wv = sum_t theta_t hom_in[t]`` and ``Wo = sum_t theta_t hom_out[t]``; nothing
    else, so ``sum(p.numel() for p in layer.parameters()) == 4 * sum_i p_i`` (``num_parameters``).
    Buffers (float64, in the ``state_dict``): ``group_matrices`` and per orbit ``cosets``,
    ``hom_in``, ``hom_out``. The head at coset ``a`` uses ``W_Q = Wq rho(a)^T`` (same for K, V)
    and ``W_O = rho(a) Wo``; ``forward(x, attn_mask=None, is_causal=False)``.

    Keyword arguments: ``dtype``, ``device`` (as for torch modules), ``generator`` (for the
    random initialisation, see :meth:`reset_parameters`), ``canonical_basis`` (default True:
    replace each Hom basis by the canonical orthonormal basis of the same space, see
    :func:`canonical_basis`; the function class and parameter count are unchanged, only the
    meaning of the individual coordinates).

    Other entry points: :meth:`from_design`, :meth:`from_json`, :meth:`from_vanilla`, :meth:`load_design_weights`,
    :meth:`design_weights`, :meth:`head_weights`, :meth:`to_vanilla`, :meth:`group_action`.
    """

    def __init__(
        self,
        realized: Any,
        *,
        dtype: torch.dtype | None = None,
        device: Any = None,
        generator: torch.Generator | None = None,
        canonical_basis: bool = True,
    ) -> None:
        super().__init__()
        dtype = _check_factory(dtype)
        device = None if device is None else _check_device(device)
        G = np.asarray(realized.group_matrices, dtype=np.float64)
        n = int(realized.dim_v)
        if G.ndim != 3 or G.shape[1:] != (n, n) or G.shape[0] < 1:
            raise ValueError(f"group_matrices must have shape (|G|, {n}, {n}), got {G.shape}")
        err = np.abs(G @ G.transpose(0, 2, 1) - np.eye(n)).max() if n else 0.0
        if err > 1e-8:
            raise ValueError(f"group_matrices are not orthogonal (max |rho rho^T - I| = {err:.2e})")
        self.dim_v = n
        self.group_order = G.shape[0]
        self.register_exact("group_matrices", G, dtype, device)
        orbits = tuple(realized.orbits)
        self.block = bool(orbits) and getattr(realized, "blocks", None) is not None and all(
            getattr(o, "hom", None) is not None for o in orbits
        )
        self.expansion: BlockExpansion | None = None
        if self.block:
            self.orbits = nn.ModuleList(BlockOrbit(o, dtype, device) for o in orbits)
        else:
            cache: dict = {}  # identical bases (repeated orbits) are canonicalised once
            self.orbits = nn.ModuleList(_Orbit(o, n, dtype, device, canonical_basis, cache) for o in orbits)
        self.heads = sum(o.index for o in self.orbits)
        self.head_dim = max((o.head_dim for o in self.orbits), default=0)
        widths = [o.head_dim if o.p else 0 for o in self.orbits for _ in range(o.index)]  # p = 0: the head computes 0
        order = group_head_order(coset_groups(realized)) if self.block else None
        self.layout = HeadLayout.of(widths, order=order)
        self.buckets = list(self.layout.buckets)
        self.layout_total = int(self.layout.total)
        # orbit-order padded rows (h * head_dim + r) <-> layout rows
        padded = self.layout.padded_rows(self.head_dim)
        real = np.nonzero(padded >= 0)[0]
        self.register_index("_layout_rows", real, device)
        self.register_index("_padded_rows", padded[real], device)
        members = [_bucket_members(self.layout, i) for i in range(len(self.buckets))]
        self.register_index("_bucket_heads_all", np.concatenate(members) if members else np.zeros(0), device)
        #: bucket i's heads are _bucket_heads_all[_bucket_starts[i] : _bucket_starts[i + 1]]
        self._bucket_starts = [0] + [int(x) for x in np.cumsum([len(m) for m in members])]
        #: orthonormal basis (b, n) of V^G (user coordinates): the output biases equivariance allows
        self.v_fixed_np = _invariant_vectors(G, getattr(realized, "blocks", None), orbits)
        change = _common_change(orbits) if self.block else None
        self.register_exact("basis_change", change if change is not None else np.zeros((0, 0)), dtype, device, persistent=False)
        self.has_change = change is not None
        if self.block:
            self.expansion = BlockExpansion(realized, self.layout, dtype, device)
        else:
            self._find_runs()
        self.weight_cache, self.head_cache = WeightCache(), WeightCache()
        self.reset_parameters(generator=generator)

    def _find_runs(self) -> None:
        """Group consecutive orbits with identical bases (one expansion matmul per run)."""
        if self.block:
            self._runs = []
            return
        runs: list[list[int]] = []
        for i, o in enumerate(self.orbits):
            if runs and self.orbits[runs[-1][0]].same_basis(o):
                runs[-1].append(i)
            else:
                runs.append([i])
        self._runs = [tuple(r) for r in runs]

    def _refresh_working(self) -> None:
        super()._refresh_working()
        if hasattr(self, "_runs"):  # bases may have changed (load_state_dict)
            self._find_runs()

    def bucket_heads(self, i: int) -> torch.Tensor:
        """Bucket i's heads (orbit order), for per-head masks."""
        return self._bucket_heads_all[self._bucket_starts[i] : self._bucket_starts[i + 1]]

    def _bucket_head_list(self) -> list[torch.Tensor]:
        return [self.bucket_heads(i) for i in range(len(self.buckets))]

    # ----- constructors ------------------------------------------------------------------
    @classmethod
    def from_design(
        cls,
        design: Any,
        *,
        rep_matrices: Sequence[Any] | None = None,
        basis: Any = None,
        **kwargs: Any,
    ) -> "EquivariantAttention":
        """The layer of ``design`` (an ``eqattn.Design``; it carries its problem).

        By default V has the design's coordinates (``problem.rho``: block form in the irreps'
        standard matrices). To act in YOUR basis of V, give either

        * ``rep_matrices``: your orthogonal ``rho_u(g)`` for any generating set of G (e.g. escnn's
          permutation matrices of the regular representation); the element correspondence and
          an orthogonal ``Q`` with ``rho_u(g) = Q rho(g) Q^T`` are found
          (:func:`eqattn.numeric.basis.match_basis`), or
        * ``basis``: a :class:`eqattn.numeric.basis.BasisChange` (what the escnn/e3nn adapters of
          :mod:`eqattn.torch.interop` return).

        The layer is then equivariant for your matrices, ``f(X rho_u(g)^T) = f(X) rho_u(g)^T``,
        and ``group_action(g)`` returns ``rho_u(g)``. The bases are conjugated once, so a
        forward pass costs the same. Other keywords as for the constructor.
        """
        from eqattn.attention import Design
        from eqattn.errors import InputTypeError
        from eqattn.numeric import realize_design
        from eqattn.numeric.basis import BasisChange, match_basis

        if not isinstance(design, Design):
            raise InputTypeError("design", f"an eqattn.Design (e.g. eqattn.optimal_design(problem)), got {type(design).__name__}")
        if basis is not None and not isinstance(basis, BasisChange):
            raise InputTypeError("basis", f"a BasisChange (eqattn.numeric.basis), got {type(basis).__name__}")
        if kwargs.get("dtype") is not None and not isinstance(kwargs["dtype"], torch.dtype):
            raise InputTypeError("dtype", f"a torch.dtype such as torch.float64, got {kwargs['dtype']!r}")
        if kwargs.get("device") is not None:  # (the constructor checks it too; here before the realisation)
            _check_device(kwargs["device"])
        problem = design.problem
        realized = realize_design(problem, design)
        if rep_matrices is not None and basis is not None:
            raise ValueError("give rep_matrices or basis, not both")
        if rep_matrices is not None:
            basis = match_basis(problem.group, problem.rho, rep_matrices)
        if basis is not None:
            realized = realized.in_basis(basis.Q)
        return cls(realized, **kwargs)

    @classmethod
    def from_json(cls, obj: Any, **kwargs: Any) -> "EquivariantAttention":
        """From what ``eqattn check --json`` / ``eqattn optimize --json`` print.

        ``obj`` is a dict, a JSON string or a path. It needs top-level ``group``, ``rep``,
        ``heads``, ``head_dim`` and the orbits as ``design.orbits`` or ``orbits``, each
        ``{"subgroup": id or name, "rep": text}`` (an optional ``"count": k`` repeats it).
        When the JSON states the design's parameter count, the layer is checked against it.
        Keywords as for :meth:`from_design` (``rep_matrices=``, ``dtype=``, ...).
        """
        design, expected = design_from_json(obj)
        layer = cls.from_design(design, **kwargs)
        if expected is not None and int(expected) != layer.num_parameters:
            raise ValueError(
                f"the realised layer has {layer.num_parameters} parameters but the JSON says {expected}"
            )
        return layer

    @classmethod
    def from_vanilla(cls, design: Any, vanilla: Any, **kwargs: Any) -> "EquivariantAttention":
        """The design's layer computing the same function as a G-equivariant vanilla layer.

        ``vanilla`` is a :class:`VanillaAttention` or arrays ``(Wq, Wk, Wv, Wo)`` with shapes
        ``(H, d, n), (H, d, n), (H, d, n), (H, n, d)``. The per-orbit weights come from the core
        (SPEC §4.5: cluster the heads, read off the scenario, build the weights from the
        coverage witness): :func:`eqattn.numeric.convert_vanilla`. Raises the core's
        ``InputError`` when the weights are not G-equivariant or the design does not cover them.
        """
        from eqattn.numeric import convert_vanilla

        if isinstance(vanilla, VanillaAttention):
            vanilla = (vanilla.Wq, vanilla.Wk, vanilla.Wv, vanilla.Wo)
        arrs = [
            (a.detach().double().cpu().numpy() if isinstance(a, torch.Tensor) else np.asarray(a, dtype=np.float64))
            for a in vanilla
        ]
        weights = convert_vanilla(design.problem, design, *arrs).weights
        layer = cls.from_design(design, **kwargs)
        layer.load_design_weights(weights)
        return layer

    # ----- parameters ----------------------------------------------------------------------
    @property
    def num_parameters(self) -> int:
        """``4 * sum_i dim Hom_{K_i}(V, W_i)`` (SPEC §3): the design's parameter count."""
        return 4 * sum(o.p for o in self.orbits)

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Random coordinates whose expanded weights have the usual scale.

        ``Wq, Wk, Wv`` get expected squared Frobenius norm ``dim W`` (entries of variance
        ``1/n_V``), ``Wo`` gets ``n_V dim W / T`` with ``T`` the total head dimension.
        """
        total = sum(o.index * o.head_dim for o in self.orbits) or 1
        for o in self.orbits:
            if o.p == 0:
                continue
            norm_in, norm_out = o.basis_norms
            s_in = math.sqrt(o.head_dim / norm_in) if norm_in > 0 else 0.0
            s_out = math.sqrt(self.dim_v * o.head_dim / total / norm_out) if norm_out > 0 else 0.0
            for name, s in (("theta_q", s_in), ("theta_k", s_in), ("theta_v", s_in), ("theta_o", s_out)):
                t = getattr(o, name)
                noise = torch.randn(t.shape, generator=generator, dtype=torch.float64, device=_gen_device(generator))
                t.copy_(noise * s)

    @torch.no_grad()
    def load_design_weights(self, per_orbit: Sequence[Sequence[Any]]) -> None:
        """Set the coordinates from matrices ``(Wq, Wk, Wv, Wo)`` per orbit.

        ``Wq, Wk, Wv (dim W, n_V)`` must lie in Hom_K(V, W) and ``Wo (n_V, dim W)`` in
        Hom_K(W, V); their coordinates are the least-squares projections onto the basis
        (for the orthonormal ``hom_in`` simply ``<W, hom_in[t]>``). Raises ``ValueError`` when a
        matrix is off the space by more than ``weight_coordinates.HOM_RESIDUAL_TOL`` relative.
        """
        if len(per_orbit) != len(self.orbits):
            raise ValueError(f"expected weights for {len(self.orbits)} orbits, got {len(per_orbit)}")
        U = self.basis_change.detach().cpu().numpy() if self.has_change else None
        coords = []
        for i, (orbit, mats) in enumerate(zip(self.orbits, per_orbit)):
            if len(mats) != 4:
                raise ValueError(f"orbit {i}: expected (Wq, Wk, Wv, Wo), got {len(mats)} matrices")
            entry = []
            for name, mat in zip("qkvo", mats):
                what = f"orbit {i}: W{name}"
                if self.block:
                    entry.append(block_coordinates(orbit, mat, name == "o", U, what))
                else:
                    basis = orbit.hom_out if name == "o" else orbit.hom_in
                    entry.append(basis_coordinates(mat, basis.detach().cpu().numpy(), what))
            coords.append(entry)
        for orbit, entry in zip(self.orbits, coords):
            for name, c in zip(("theta_q", "theta_k", "theta_v", "theta_o"), entry):
                t = getattr(orbit, name)
                t.copy_(torch.as_tensor(c, dtype=t.dtype, device=t.device))

    @torch.no_grad()
    def design_weights(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Per orbit ``(Wq, Wk, Wv, Wo)`` as float64 numpy (inverse of ``load_design_weights``)."""
        out = []
        U = self.basis_change.detach().cpu().numpy() if self.has_change else None
        for o in self.orbits:
            th = [getattr(o, n).detach().double().cpu().numpy() for n in ("theta_q", "theta_k", "theta_v", "theta_o")]
            if self.block:
                wq, wk, wv, wo_t = (o.hom.compose(t) for t in th)
                if U is not None:
                    wq, wk, wv, wo_t = (m @ U.T for m in (wq, wk, wv, wo_t))
                out.append((wq, wk, wv, wo_t.T.copy()))
                continue
            hin = o.hom_in.detach().cpu().numpy()
            hout = o.hom_out.detach().cpu().numpy()
            out.append(tuple(np.tensordot(t, b, axes=1) for t, b in zip(th, (hin, hin, hin, hout))))
        return out

    # ----- group ---------------------------------------------------------------------------
    def group_action(self, g: int) -> torch.Tensor:
        """``rho(g)`` as a ``(dim V, dim V)`` tensor (module dtype and device), ``g in range(|G|)``."""
        g = whole_number(g, "g", 0, self.group_order - 1)
        return self.group_matrices_w[int(g)].clone()

    # ----- forward -------------------------------------------------------------------------
    def head_weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Expanded per-head weights in the vanilla layout (SPEC §1), heads padded to ``head_dim``:
        ``W_Q, W_K, W_V (H, D, n)`` and ``W_O (H, n, D)`` (differentiable; heads in orbit order,
        then coset order; in the user's coordinates). Reused as :meth:`projections` is."""
        if torch.jit.is_scripting():
            return self._head_weights()
        return self._reused_head_weights()

    @torch.jit.unused
    def _reused_head_weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.head_cache.get(self._weight_inputs(), self._head_weights)


    _reused_head_weights.__annotations__["return"] = Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]  # TorchScript reads real types, not strings
    def _head_weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        n, H, D = self.dim_v, self.heads, self.head_dim
        if H == 0 or D == 0:
            z = self.group_matrices_w.new_zeros
            return z(H, D, n), z(H, D, n), z(H, D, n), z(H, n, D)
        if not self.block:
            qkv, wo = self._expanded()
            return qkv[0], qkv[1], qkv[2], wo
        w = self._block_weights()  # (4, T, n), layout rows
        flat = w.new_zeros(4, H * D, n).index_copy(1, self._padded_rows, w.index_select(1, self._layout_rows))
        if self.has_change:
            flat = flat @ self.basis_change_w.T
        flat = flat.view(4, H, D, n)
        return flat[0], flat[1], flat[2], flat[3].transpose(1, 2)

    @torch.jit.unused
    def _expanded(self) -> Tuple[torch.Tensor, torch.Tensor]:
        """Dense path: ``(3, H, D, n)`` and ``(H, n, D)``; heads in orbit order, then coset order."""
        parts = [_expand_run([self.orbits[i] for i in run], self.head_dim) for run in self._runs]
        if len(parts) == 1:
            return parts[0]
        qkv = torch.cat([p[0] for p in parts], dim=1)  # (3, H, D, n)
        wo = torch.cat([p[1] for p in parts], dim=0)  # (H, n, D)
        return qkv, wo


    _expanded.__annotations__["return"] = Tuple[torch.Tensor, torch.Tensor]  # TorchScript reads real types, not strings
    def _block_weights(self) -> torch.Tensor:
        """Block path: ``(4, T, n)`` q, k, v and ``W_O^T`` rows in the layout (design coordinates)."""
        assert self.expansion is not None
        qs, ks, vs, os_ = [], [], [], []
        for o in self.orbits:  # (a loop over the orbits, as TorchScript wants it)
            qs.append(o.theta_q)
            ks.append(o.theta_k)
            vs.append(o.theta_v)
            os_.append(o.theta_o)
        theta = torch.stack([torch.cat(qs), torch.cat(ks), torch.cat(vs), torch.cat(os_)])
        return self.expansion.weights(theta)

    def _weight_inputs(self) -> list[torch.Tensor]:
        """Every tensor the expanded weights depend on (for :class:`WeightCache`)."""
        return list(self.parameters()) + [b for b in self.buffers()]

    def projections(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``w_in (3, T, n)`` (q, k, v rows in :attr:`layout`) and ``w_out (n, T)``: what one
        forward uses, T = ``layout.total`` (each bucket's heads padded to its width). In the
        design's coordinates when :attr:`has_change` (the forward rotates its input instead).
        Reused without autograd while the coordinates are unchanged (:mod:`eqattn.torch.reuse`;
        ``layer.weight_cache.enabled = False`` expands on every call)."""
        if torch.jit.is_scripting():
            return self._projections()
        return self._reused_projections()

    @torch.jit.unused
    def _reused_projections(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.weight_cache.get(self._weight_inputs(), self._projections)


    _reused_projections.__annotations__["return"] = Tuple[torch.Tensor, torch.Tensor]  # TorchScript reads real types, not strings
    def _projections(self) -> tuple[torch.Tensor, torch.Tensor]:
        n = self.dim_v
        if self.block:
            w_in, w_o = self._block_weights().split([3, 1])
            return w_in, w_o[0].T
        qkv, wo = self._expanded()  # orbit order, padded to head_dim
        T = self.layout_total
        w_in = qkv.new_zeros(3, T, n).index_copy(
            1, self._layout_rows, qkv.reshape(3, -1, n).index_select(1, self._padded_rows)
        )
        wo_rows = wo.transpose(1, 2).reshape(-1, n).index_select(0, self._padded_rows)
        w_out = wo.new_zeros(T, n).index_copy(0, self._layout_rows, wo_rows).T
        return w_in, w_out

    def forward(
        self, x: torch.Tensor, attn_mask: torch.Tensor | None = None, is_causal: bool = False
    ) -> torch.Tensor:
        if not torch.jit.is_scripting():
            _check_tokens(x, self.dim_v)
        if self.heads == 0 or self.layout_total == 0:
            return _attend(x, x.new_zeros(3, 0, self.dim_v), x.new_zeros(self.dim_v, 0), self.buckets, attn_mask, is_causal)
        w_in, w_out = self.projections()
        if self.has_change:  # x_design = x_user U, y_user = y_design U^T
            U = self.basis_change_w
            y = _attend(x @ U, w_in, w_out, self.buckets, attn_mask, is_causal, self._bucket_head_list())
            return y @ U.T
        return _attend(x, w_in, w_out, self.buckets, attn_mask, is_causal, self._bucket_head_list())

    def to_vanilla(self) -> "VanillaAttention":
        """A :class:`VanillaAttention` computing the same function (a detached copy)."""
        Wq, Wk, Wv, Wo = (t.detach() for t in self.head_weights())
        v = VanillaAttention(self.heads, self.head_dim, self.dim_v, dtype=Wq.dtype, device=Wq.device)
        with torch.no_grad():
            for p, t in zip((v.Wq, v.Wk, v.Wv, v.Wo), (Wq, Wk, Wv, Wo)):
                p.copy_(t)
        return v

    def extra_repr(self) -> str:
        return (
            f"dim_v={self.dim_v}, group_order={self.group_order}, heads={self.heads}, "
            f"head_dim={self.head_dim}, params={self.num_parameters}"
        )


def _bucket_members(layout: HeadLayout, i: int) -> np.ndarray:
    """The heads (orbit order) of bucket i, in the bucket's order."""
    off, h, d = layout.buckets[i]
    heads = [k for k, r in enumerate(layout.row) if layout.widths[k] and off <= r < off + h * d]
    return np.array(sorted(heads, key=lambda k: layout.row[k]), dtype=np.int64)


def _invariant_vectors(G: np.ndarray, blocks: Any, orbits: Sequence[Any]) -> np.ndarray:
    """V^G: in block form the copies of the trivial irrep (rotated by the user's change),
    otherwise the image of the averaging projector."""
    from eqattn.numeric.equivariant import fixed_vectors

    n = G.shape[1]
    if blocks is None or not orbits:
        return fixed_vectors(G) if n else np.zeros((0, 0))
    design = np.asarray(orbits[0].group_matrices)
    cols = [off + k for off, m, d in blocks if d == 1 and np.allclose(design[:, off, off], 1.0, atol=1e-9) for k in range(m)]
    basis = np.eye(n)[cols]
    change = getattr(orbits[0], "change", None)
    return basis if change is None else basis @ np.asarray(change).T


def _common_change(orbits: Sequence[Any]) -> np.ndarray | None:
    """The user's change of basis U shared by every orbit (None: the design's coordinates)."""
    changes = [getattr(o, "change", None) for o in orbits]
    first = changes[0]
    for c in changes[1:]:
        if (c is None) != (first is None) or (c is not None and not np.array_equal(c, first)):
            raise ValueError("the orbits of a realised design must share one change of basis")
    return None if first is None else np.asarray(first, dtype=np.float64)
