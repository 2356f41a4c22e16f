"""The report's adapter families: every variant under the adapter it varies, derived from names and records."""
from adapters.registry import MODES, SHIPPED
from contract.vocabulary import LAYOUTS
from reports.families import families, parent_of


def test_the_name_rule_agrees_with_the_registry():
    # The report cannot import the registry (tests/test_layers.py): a variant of one framework without a twin
    # must be named BASE-SUFFIX after the first row wrapping the same frameworks, or the report would miss it.
    names = list(SHIPPED)
    for name, row in SHIPPED.items():
        first = next(n for n, r in SHIPPED.items() if r.frameworks == row.frameworks)
        if row.frameworks and first != name and not row.twin:
            assert parent_of(name, names)[:2] == (first, "variant"), name
        if row.twin:        # a compiled mode: under its eager twin, by the mode records' twin or by name
            assert parent_of(name, names, MODES)[:2] == (row.twin, "compiled mode"), name
            assert parent_of(name, names)[0] == row.twin, name


def test_layouts_constructions_and_modes_sit_under_their_base():
    names = ["oracle", "torch", "torch-compile", "vendor@from_numpy", "vendor", "mindspore", "mindspore-variants"]
    names += [f"{a}@{x}" for a in ("torch", "mindspore-variants") for x in LAYOUTS]
    got = {m.name: m for m in families(names, {"torch-compile": "torch"})}
    assert [m.name for m in families(names, {"torch-compile": "torch"})][:6] == \
        ["oracle", "torch"] + [f"torch@{x}" for x in LAYOUTS] + ["torch-compile"]
    for x in LAYOUTS:
        assert got[f"torch@{x}"][1:5] == ("torch", "torch", "layout", x)
        assert got[f"mindspore-variants@{x}"][1:3] == ("mindspore", "mindspore-variants")
        assert got[f"mindspore-variants@{x}"].depth == 2
    assert got["torch-compile"][1:5] == ("torch", "torch", "compiled mode", "torch")
    assert got["vendor@from_numpy"][1:5] == ("vendor", "vendor", "construction", "from_numpy")
    assert got["mindspore-variants"][1:4] == ("mindspore", "mindspore", "variant")
    assert got["oracle"].depth == 0 and got["oracle"].kind == ""


def test_a_variant_without_its_base_stands_alone():
    (m,) = families(["torch@strided"])
    assert (m.family, m.parent, m.kind, m.depth) == ("torch@strided", "", "layout", 0)
    assert [x.depth for x in families(["jax-jit", "tensorflow"])] == [0, 0]
