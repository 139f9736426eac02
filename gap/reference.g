# gap/reference.g -- GAP-computed reference values for the eqattn test-suite.
#
# Usage (normally via gap/regenerate.sh):
#     gap -q -c 'OUTFILE := "tests/data/gap_reference.json";' gap/reference.g
# If OUTFILE is not bound, "tests/data/gap_reference.json" (relative to the
# current directory) is used.
#
# For each group in the catalog below this writes one JSON object with
#   order, num_element_classes, num_subgroup_classes, subgroup_classes
#   (list of {order, size, structure, normal}, sorted by (order, structure,
#   size)), num_subgroups, irreducible_degrees, fs_indicators
#   ([degree, Frobenius-Schur indicator] pairs, sorted), num_real_irreps,
#   real_irrep_dims.
#
# Real irreducible representations are derived from the complex ones via the
# Frobenius-Schur indicator:
#   indicator  1 (real type)        -> one real irrep of dimension d
#   indicator  0 (complex type)     -> each conjugate PAIR gives one real irrep
#                                      of dimension 2d
#   indicator -1 (quaternionic)     -> one real irrep of dimension 2d
#
# No GAP packages beyond the standard library (+ ctbllib/tomlib if present)
# are required; the JSON is written by hand.

if not IsBound(OUTFILE) then
  OUTFILE := "tests/data/gap_reference.json";
fi;

# ---------------------------------------------------------------------------
# Catalog: [ name, GAP construction as a string ]
# The construction string is evaluated with EvalString and also recorded in
# the JSON so that the test author can see exactly what was computed.
# ---------------------------------------------------------------------------

CATALOG := [];

AddGroup := function(name, construction)
  Add(CATALOG, [name, construction]);
end;

# Cyclic groups
for n in Concatenation([1..12], [16, 24, 60]) do
  AddGroup(Concatenation("C", String(n)),
           Concatenation("CyclicGroup(", String(n), ")"));
od;

# Dihedral groups: our D_n has order 2n, GAP's DihedralGroup takes the order.
for n in Concatenation([3..12], [24, 30]) do
  AddGroup(Concatenation("D", String(n)),
           Concatenation("DihedralGroup(", String(2*n), ")"));
od;

AddGroup("Q8", "QuaternionGroup(8)");
for n in [3..5] do
  AddGroup(Concatenation("A", String(n)),
           Concatenation("AlternatingGroup(", String(n), ")"));
od;
for n in [3..5] do
  AddGroup(Concatenation("S", String(n)),
           Concatenation("SymmetricGroup(", String(n), ")"));
od;
for k in [2..4] do
  AddGroup(Concatenation("C2^", String(k)),
           Concatenation("ElementaryAbelianGroup(", String(2^k), ")"));
od;

AddGroup("C2xC4", "DirectProduct(CyclicGroup(2), CyclicGroup(4))");
AddGroup("C2xC6", "DirectProduct(CyclicGroup(2), CyclicGroup(6))");
AddGroup("C3xC3", "DirectProduct(CyclicGroup(3), CyclicGroup(3))");
AddGroup("C4xC4", "DirectProduct(CyclicGroup(4), CyclicGroup(4))");
AddGroup("S3xC2", "DirectProduct(SymmetricGroup(3), CyclicGroup(2))");
AddGroup("D4xC2", "DirectProduct(DihedralGroup(8), CyclicGroup(2))");
AddGroup("A4xC2", "DirectProduct(AlternatingGroup(4), CyclicGroup(2))");
AddGroup("S4xC2", "DirectProduct(SymmetricGroup(4), CyclicGroup(2))");
AddGroup("A5xC2", "DirectProduct(AlternatingGroup(5), CyclicGroup(2))");
AddGroup("Q8xC2", "DirectProduct(QuaternionGroup(8), CyclicGroup(2))");
AddGroup("S3xS3", "DirectProduct(SymmetricGroup(3), SymmetricGroup(3))");
AddGroup("C3xS3", "DirectProduct(CyclicGroup(3), SymmetricGroup(3))");

# AGL(1, 8) = C2^3 : C7 on GF(8) (x -> x + 1, x -> 2x with x^3 = x + 1), and times C2: the
# independent finite route for degree 3 of SO(3) / O(3) (docs/theory-continuous.md §8), keyed
# by their catalog specs (1-based permutations).
AddGroup("perm:(1,2)(3,4)(5,6)(7,8),(2,3,5,4,7,8,6)",
         "Group((1,2)(3,4)(5,6)(7,8), (2,3,5,4,7,8,6))");
AddGroup("perm:(1,2)(3,4)(5,6)(7,8),(2,3,5,4,7,8,6),(9,10)",
         "Group((1,2)(3,4)(5,6)(7,8), (2,3,5,4,7,8,6), (9,10))");

# 3D point groups, by abstract isomorphism type.
AddGroup("T",  "AlternatingGroup(4)");
AddGroup("Td", "SymmetricGroup(4)");
AddGroup("Th", "DirectProduct(AlternatingGroup(4), CyclicGroup(2))");
AddGroup("O",  "SymmetricGroup(4)");
AddGroup("Oh", "DirectProduct(SymmetricGroup(4), CyclicGroup(2))");
AddGroup("I",  "AlternatingGroup(5)");
AddGroup("Ih", "DirectProduct(AlternatingGroup(5), CyclicGroup(2))");
for n in [2..6] do
  # Cnv = D_n (order 2n); C2v = DihedralGroup(4) = C2 x C2
  AddGroup(Concatenation("C", String(n), "v"),
           Concatenation("DihedralGroup(", String(2*n), ")"));
  # Cnh = C_n x C2
  AddGroup(Concatenation("C", String(n), "h"),
           Concatenation("DirectProduct(CyclicGroup(", String(n),
                         "), CyclicGroup(2))"));
  # Dnh = D_n x C2
  AddGroup(Concatenation("D", String(n), "h"),
           Concatenation("DirectProduct(DihedralGroup(", String(2*n),
                         "), CyclicGroup(2))"));
  # Dnd = D_{2n} (order 4n)
  AddGroup(Concatenation("D", String(n), "d"),
           Concatenation("DihedralGroup(", String(4*n), ")"));
  # S2n = C_{2n}; keyed "pg:S<2n>" to avoid clashing with symmetric groups
  AddGroup(Concatenation("pg:S", String(2*n)),
           Concatenation("CyclicGroup(", String(2*n), ")"));
od;

# ---------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------

JsonStr := function(s)
  local out, c;
  out := "\"";
  for c in s do
    if c = '\"' then Append(out, "\\\"");
    elif c = '\\' then Append(out, "\\\\");
    elif c = '\n' then Append(out, "\\n");
    else Add(out, c);
    fi;
  od;
  Add(out, '\"');
  return out;
end;

JsonBool := function(b)
  if b then return "true"; else return "false"; fi;
end;

JsonIntList := function(l)
  return Concatenation("[", JoinStringsWithSeparator(List(l, String), ", "), "]");
end;

# ---------------------------------------------------------------------------
# Computation
# ---------------------------------------------------------------------------

GroupRecordJson := function(name, construction)
  local G, ccs, subs, tbl, irr, degs, ind, fs, nreal, ncomplex, nquat,
        realdims, i, d, lines, sc, scjson;

  G := EvalString(construction);

  ccs := ConjugacyClassesSubgroups(G);
  subs := List(ccs, c -> [ Size(Representative(c)),
                          StructureDescription(Representative(c)),
                          Size(c),
                          IsNormal(G, Representative(c)) ]);
  Sort(subs);   # lexicographic: (order, structure, size, normal)

  tbl := CharacterTable(G);
  irr := Irr(tbl);
  degs := List(irr, chi -> chi[1]);
  ind := Indicator(tbl, 2);
  fs := List([1..Length(irr)], i -> [degs[i], ind[i]]);
  Sort(fs);

  realdims := [];
  ncomplex := 0;
  for i in [1..Length(irr)] do
    d := degs[i];
    if ind[i] = 1 then
      Add(realdims, d);
    elif ind[i] = -1 then
      Add(realdims, 2*d);
    elif ind[i] = 0 then
      ncomplex := ncomplex + 1;
      # count each complex-conjugate pair once: the pair is {chi, chi-bar};
      # add it for the member with the smaller position.
      if Position(irr, ComplexConjugate(irr[i])) > i then
        Add(realdims, 2*d);
      fi;
    else
      Error("unexpected Frobenius-Schur indicator ", ind[i]);
    fi;
  od;
  Sort(realdims);
  nreal := Number(ind, x -> x <> 0) + ncomplex / 2;
  if nreal <> Length(realdims) then
    Error("real irrep bookkeeping mismatch for ", name);
  fi;
  if Sum(degs, d -> d^2) <> Size(G) then
    Error("sum of squares of degrees <> |G| for ", name);
  fi;

  scjson := List(subs, s -> Concatenation(
      "{\"order\": ", String(s[1]),
      ", \"structure\": ", JsonStr(s[2]),
      ", \"size\": ", String(s[3]),
      ", \"normal\": ", JsonBool(s[4]), "}"));

  lines := [];
  Add(lines, Concatenation("    ", JsonStr(name), ": {"));
  Add(lines, Concatenation("      \"gap_construction\": ", JsonStr(construction), ","));
  Add(lines, Concatenation("      \"structure\": ", JsonStr(StructureDescription(G)), ","));
  Add(lines, Concatenation("      \"order\": ", String(Size(G)), ","));
  Add(lines, Concatenation("      \"num_element_classes\": ",
                           String(NrConjugacyClasses(G)), ","));
  Add(lines, Concatenation("      \"num_subgroup_classes\": ",
                           String(Length(ccs)), ","));
  Add(lines, Concatenation("      \"num_subgroups\": ",
                           String(Sum(subs, s -> s[3])), ","));
  Add(lines, Concatenation("      \"subgroup_classes\": [\n        ",
                           JoinStringsWithSeparator(scjson, ",\n        "),
                           "\n      ],"));
  Add(lines, Concatenation("      \"irreducible_degrees\": ",
                           JsonIntList(SortedList(degs)), ","));
  Add(lines, Concatenation("      \"fs_indicators\": [",
                           JoinStringsWithSeparator(List(fs, JsonIntList), ", "),
                           "],"));
  Add(lines, Concatenation("      \"num_real_irreps\": ", String(nreal), ","));
  Add(lines, Concatenation("      \"real_irrep_dims\": ", JsonIntList(realdims)));
  Add(lines, "    }");
  return JoinStringsWithSeparator(lines, "\n");
end;

# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

out := OutputTextFile(OUTFILE, false);
SetPrintFormattingStatus(out, false);

PrintTo(out, "{\n");
PrintTo(out, "  \"meta\": {\n");
PrintTo(out, "    \"generator\": \"gap/reference.g\",\n");
PrintTo(out, "    \"gap_version\": ", JsonStr(GAPInfo.Version), ",\n");
PrintTo(out, "    \"notes\": ", JsonStr(Concatenation(
  "Our D_n has order 2n (GAP DihedralGroup(2n)); structure strings are ",
  "GAP StructureDescription output (GAP writes the dihedral group of ",
  "order 2n as D<2n>). Point group S_{2n} is keyed 'pg:S<2n>'.")), "\n");
PrintTo(out, "  },\n");
PrintTo(out, "  \"groups\": {\n");
for i in [1..Length(CATALOG)] do
  entry := GroupRecordJson(CATALOG[i][1], CATALOG[i][2]);
  AppendTo(out, entry);
  if i < Length(CATALOG) then
    AppendTo(out, ",\n");
  else
    AppendTo(out, "\n");
  fi;
od;
AppendTo(out, "  }\n}\n");
CloseStream(out);
QUIT;
