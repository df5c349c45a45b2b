"""The curated programming-vocabulary lexicon of the rule-based LV mutator.

Every entry maps one lower-case *whole word* to a broader / less informative
replacement (possibly several words). Replacements are applied case-preservingly
("Sort" -> "Arrange", "SORT" -> "ARRANGE") and only to whole words of prose.
Inflected forms are listed explicitly (no stemming), so every replacement is
grammatical in the position of the word it replaces.

Three tables:
  DOMAIN_TERMS   nouns/adjectives of the programming domain -> broader synonyms
  ACTION_VERBS   precise action verbs -> weaker, vaguer verbs
  IDENT_PARTS    parts of identifiers (split on "_" / camelCase) -> less informative parts,
                 used to rename the entry point and its parameters
Words that carry a constraint (ascending, positive, empty, unique, at most, ...)
are deliberately absent: LV must not remove a constraint.
"""

from __future__ import annotations

DOMAIN_TERMS: dict[str, str] = {
    # containers
    "list": "collection", "lists": "collections",
    "array": "sequence", "arrays": "sequences",
    "tuple": "group", "tuples": "groups",
    "dictionary": "mapping", "dictionaries": "mappings",
    "dict": "mapping", "dicts": "mappings",
    "matrix": "grid", "matrices": "grids",
    "sublist": "part", "sublists": "parts",
    "subarray": "stretch", "subarrays": "stretches",
    "element": "item", "elements": "items",
    "entry": "piece", "entries": "pieces",
    "item": "entry", "items": "entries",
    "sequence": "series", "sequences": "series",
    "pair": "couple", "pairs": "couples",
    # numbers
    "integer": "number", "integers": "numbers",
    "float": "number", "floats": "numbers",
    "decimal": "number", "decimals": "numbers",
    "number": "value", "numbers": "values",
    "digit": "figure", "digits": "figures",
    "sum": "total", "sums": "totals",
    "remainder": "leftover", "remainders": "leftovers",
    "quotient": "result",
    "value": "quantity", "values": "quantities",
    # text
    "string": "text", "strings": "texts",
    "substring": "piece of text", "substrings": "pieces of text",
    "character": "symbol", "characters": "symbols",
    "char": "symbol", "chars": "symbols",
    "letter": "character", "letters": "characters",
    "word": "term", "words": "terms",
    "sentence": "text", "sentences": "texts",
    "whitespace": "blank", "whitespaces": "blanks",
    "space": "gap", "spaces": "gaps",
    "delimiter": "separator", "delimiters": "separators",
    "delimeter": "filler",
    "parentheses": "brackets", "parenthesis": "bracket",
    "prefix": "beginning", "prefixes": "beginnings",
    "suffix": "ending", "suffixes": "endings",
    "postfix": "ending",
    # positions and sizes
    "index": "position", "indices": "positions", "indexes": "positions",
    "position": "place", "positions": "places",
    "length": "size", "lengths": "sizes",
    "occurrence": "instance", "occurrences": "instances",
    "frequency": "rate", "frequencies": "rates",
    "key": "label", "keys": "labels",
    # misc programming words
    "function": "routine", "functions": "routines",
    "boolean": "flag", "booleans": "flags",
    "result": "outcome", "results": "outcomes",
    "output": "outcome",
    "input": "data",
    "parameter": "input", "parameters": "inputs",
    "argument": "input", "arguments": "inputs",
    "variable": "name", "variables": "names",
    "node": "point", "nodes": "points",
    "vertex": "point", "vertices": "points",
    "edge": "link", "edges": "links",
    "consecutive": "neighbouring",
    "adjacent": "nearby",
    "binary": "base-two",
    "coordinate": "location", "coordinates": "locations",
    "grid": "board",
    "operation": "step", "operations": "steps",
    "query": "request", "queries": "requests",
    "interval": "span", "intervals": "spans",
    "column": "line", "columns": "lines",
    "row": "line", "rows": "lines",
}

ACTION_VERBS: dict[str, str] = {
    "return": "give back", "returns": "gives back", "returned": "given back", "returning": "giving back",
    "compute": "work out", "computes": "works out", "computed": "worked out", "computing": "working out",
    "calculate": "work out", "calculates": "works out", "calculated": "worked out", "calculating": "working out",
    "evaluate": "work out", "evaluates": "works out",
    "insert": "put", "inserts": "puts", "inserting": "putting",
    "find": "get", "finds": "gets", "finding": "getting",
    "check": "see", "checks": "sees", "checking": "seeing",
    "determine": "figure out", "determines": "figures out",
    "sort": "arrange", "sorts": "arranges", "sorting": "arranging",
    "remove": "take out", "removes": "takes out", "removing": "taking out",
    "delete": "drop", "deletes": "drops", "deleting": "dropping",
    "reverse": "flip", "reverses": "flips", "reversing": "flipping",
    "count": "tally", "counts": "tallies", "counting": "tallying",
    "convert": "turn", "converts": "turns", "converting": "turning",
    "concatenate": "join", "concatenates": "joins", "concatenating": "joining",
    "extract": "pull out", "extracts": "pulls out", "extracting": "pulling out",
    "filter": "pick", "filters": "picks", "filtering": "picking",
    "replace": "swap", "replaces": "swaps", "replacing": "swapping",
    "split": "break", "splits": "breaks", "splitting": "breaking",
    "merge": "combine", "merges": "combines", "merging": "combining",
    "append": "attach", "appends": "attaches", "appending": "attaching",
    "generate": "make", "generates": "makes", "generating": "making",
    "create": "make", "creates": "makes", "creating": "making",
    "write": "make", "implement": "do", "implements": "does",
    "identify": "spot", "identifies": "spots",
    "verify": "see", "verifies": "sees",
    "print": "show", "prints": "shows",
    "compare": "look at", "compares": "looks at",
    "search": "look", "searches": "looks",
    "swap": "switch", "swaps": "switches",
    "rotate": "turn", "rotates": "turns",
    "shift": "move", "shifts": "moves",
    "iterate": "go", "iterates": "goes",
    "traverse": "go through", "traverses": "goes through",
    "store": "keep", "stores": "keeps",
    "select": "pick", "selects": "picks",
    "encode": "transform", "encodes": "transforms",
    "decode": "transform back", "decodes": "transforms back",
    "multiply": "combine", "multiplies": "combines",
    "compute's": "work out's",
    "takes": "gets", "take": "get",
    "contains": "has", "contain": "have",
    "appears": "shows up", "appear": "show up",
    "occurs": "shows up", "occur": "show up",
    "represents": "stands for", "represent": "stand for", "representing": "standing for",
    "consists": "is made up", "consist": "be made up",
    "checks whether": "sees whether",
}
ACTION_VERBS.pop("compute's")
ACTION_VERBS.pop("checks whether")

# Identifier parts (after splitting on "_" and camelCase). Only parts that are
# informative enough to lose information when replaced.
IDENT_PARTS: dict[str, str] = {
    "sort": "arrange", "sorted": "arranged", "sorting": "arranging",
    "sum": "total", "sums": "totals", "count": "tally", "counts": "tallies",
    "list": "items", "lst": "items", "lists": "groups", "array": "seq", "arr": "seq", "nums": "vals",
    "numbers": "values", "number": "value", "num": "val", "integers": "values", "integer": "value",
    "int": "val", "ints": "vals",
    "string": "text", "strings": "texts", "str": "text", "substring": "piece", "substr": "piece",
    "char": "symbol", "chars": "symbols", "character": "symbol", "characters": "symbols",
    "word": "term", "words": "terms", "sentence": "text", "letter": "symbol", "letters": "symbols",
    "delimeter": "filler", "delimiter": "filler", "separator": "filler", "sep": "filler",
    "threshold": "limit", "paren": "bracket", "parens": "brackets", "brackets": "marks",
    "max": "top", "maximum": "top", "min": "low", "minimum": "low", "largest": "top", "smallest": "low",
    "find": "get", "get": "obtain", "check": "see", "remove": "drop", "delete": "drop",
    "reverse": "flip", "reversed": "flipped", "insert": "put", "convert": "turn", "concatenate": "join",
    "extract": "pull", "filter": "pick", "replace": "swap", "split": "part", "merge": "combine",
    "compute": "work", "calculate": "work", "calc": "work", "generate": "make", "create": "make",
    "rotate": "turn", "shift": "move", "swap": "switch", "search": "look", "encode": "transform",
    "decode": "untransform", "parse": "read", "validate": "review", "valid": "ok", "average": "typical",
    "mean": "typical", "median": "middle", "product": "combination", "digits": "figures", "digit": "figure",
    "prime": "special", "primes": "specials", "palindrome": "mirror", "vowels": "sounds", "vowel": "sound",
    "tuple": "group", "tuples": "groups", "tup": "group", "dict": "mapping", "dictionary": "mapping",
    "matrix": "grid", "element": "item", "elements": "items", "elem": "item", "index": "pos", "idx": "pos",
    "length": "size", "len": "size", "key": "label", "keys": "labels", "value": "quantity",
    "values": "quantities", "val": "quantity", "grid": "board", "text": "content", "txt": "content",
    "result": "outcome", "res": "outcome", "total": "amount", "factorial": "series", "fib": "series",
    "fibonacci": "series", "binary": "base", "decimal": "base", "hex": "base", "upper": "big",
    "lower": "small", "uppercase": "big", "lowercase": "small",
    "first": "initial", "last": "final", "unique": "distinct", "common": "shared", "distance": "gap",
    "area": "size", "volume": "size", "perimeter": "edge", "square": "power", "cube": "power",
    "triangle": "shape", "circle": "shape", "rectangle": "shape", "angle": "turn", "radius": "span",
    "height": "size", "width": "size", "base": "root", "side": "edge", "sides": "edges",
    "matching": "fitting", "match": "fit", "longest": "biggest", "shortest": "tiniest",
    "frequency": "rate", "freq": "rate", "occurrence": "instance", "occurrences": "instances",
    "position": "place", "pos": "place", "operations": "steps", "operation": "step", "fruits": "goods",
    "planet": "body", "planets": "bodies", "grade": "mark", "grades": "marks", "music": "sound",
    "note": "mark", "notes": "marks", "brackets2": "marks",
}
IDENT_PARTS.pop("brackets2")

# Parts never renamed into (they would collide with builtins or keywords when alone).
RESERVED_NEW = {"sum", "list", "str", "int", "max", "min", "len", "map", "filter", "set", "dict", "type"}
