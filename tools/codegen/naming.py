"""How the generators name things: C++ members from model members, engine
enumerators from model enum values."""

CPP_KEYWORDS = {"delete", "bool", "default", "new", "class", "union", "operator", "int",
                "long", "null"}


def snake(name):
    """TableSizeBytes -> table_size_bytes, SizeEstimateRangeGB -> size_estimate_range_gb."""
    out = ""
    for i, ch in enumerate(name):
        if ch.isupper() and i and (not name[i - 1].isupper() or
                                   (i + 1 < len(name) and name[i + 1].islower())):
            out += "_"
        out += ch.lower()
    return out


def field(name):
    """The model structs' member for a model member (a C++ keyword gets a '_')."""
    f = snake(name)
    return f + "_" if f in CPP_KEYWORDS else f


def engine_enumerator(value):
    """The engine's name for a model enum value: PAY_PER_REQUEST -> kPayPerRequest."""
    return "k" + "".join(part.capitalize() for part in value.split("_"))
