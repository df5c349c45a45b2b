"""The curated programming-vocabulary lexicon of the rule-based LV mutator.

Every entry maps one lower-case *whole word* (or phrase) to several broader / less informative
replacements; the mutator draws one per mutant with its seed, so no single replacement word marks a
vague description (issue 25 measured "make" added to 56 % of MBPP LV mutants when each word had one
replacement). Replacements are applied case-preservingly ("Sort" -> "Arrange") and only to whole
words of prose. Inflected forms are listed explicitly (no stemming), so every replacement is
grammatical in the position of the word it replaces.

Tables:
  DOMAIN_TERMS   nouns/adjectives of the programming domain -> broader synonyms
  ACTION_VERBS   precise action verbs -> weaker, vaguer verbs
  PHRASES        multi-word phrases -> vaguer phrases (the study's phrase-level rewrites)
  IDENT_PARTS    parts of identifiers (split on "_" / camelCase) -> less informative parts,
                 used to rename the entry point and its parameters
  WHOLE_NAMES    vague whole identifiers for an entry point with no lexicon part

Left out on purpose, because replacing them changes the task instead of blurring it:
constraint words (ascending, positive, empty, unique, at most ...), number kinds (integer, float,
decimal: "all numbers are integers" is a constraint), letters (not every character is a letter),
words of a definition (median, mean, prime, factorial, binary), superlatives, and the request frame
("Write a function to", "Return", "find"), which every description shares: editing only those makes
nothing about the task vaguer.
"""

from __future__ import annotations

DOMAIN_TERMS: dict[str, tuple[str, ...]] = {
    # containers
    "list": ("collection", "group", "sequence", "series"), "lists": ("collections", "groups", "sequences", "series"),
    # not "group" for an array: "integer group", "circularly sorted group" read wrong
    "array": ("sequence", "collection", "series"), "arrays": ("sequences", "collections", "series"),
    "tuple": ("group",), "tuples": ("groups",),
    # "all triples of non-negative integers (x,y,z)": the size the word said is still in the shown (x,y,z)
    "triple": ("group",), "triples": ("groups",),
    "dictionaries": ("mappings",),
    "matrix": ("grid", "table"), "matrices": ("grids", "tables"),
    "sublist": ("part", "portion", "stretch"), "sublists": ("parts", "portions"),
    "subarray": ("portion", "part"), "subarrays": ("portions", "parts"),
    "element": ("item", "entry"), "elements": ("items", "entries"),
    # numbers and quantities ("number of" is a count: see lexical_vagueness.SENSE_GUARDS)
    "number": ("value",), "numbers": ("values",),
    # not "total" (the same precision) nor "amount" (it reads as a count): combined how is left open
    # ("overall result" loses the operation: "the overall result of its digits")
    "sum": ("combined value", "aggregate"), "sums": ("combined values", "aggregates"),
    "remainder": ("leftover", "rest"), "remainders": ("leftovers",),
    # text
    # not "line": a line is another thing ("return it as a line", "an empty line")
    # not "input": "interpret as inputs", "the resulting input S" take it in another sense
    # not "value": "a literals value in a value", "tuple value"; not "sequence": "a snake case sequence"; no
    # phrase before a variable's name ("a piece of text S of length 6": lexical_vagueness._names_next)
    "string": ("text", "piece of text", "character sequence"), "strings": ("pieces of text", "character sequences"),
    "substring": ("piece of text", "part of the text", "fragment"),
    "substrings": ("pieces of text", "fragments", "parts of the text"),
    "character": ("symbol",), "characters": ("symbols",),
    "word": ("term", "token"), "words": ("terms", "tokens"),
    "sentence": ("text", "passage"), "sentences": ("texts", "passages"),
    # not "gap": "only letters and gaps" reads wrong (HumanEval/117)
    "whitespace": ("blank", "blank space"), "spaces": ("blanks",),
    "delimiter": ("separator", "marker", "divider"), "delimiters": ("separators", "markers", "dividers"),
    "delimeter": ("filler", "spacer", "marker"),
    "prefix": ("leading part", "front part"), "prefixes": ("leading parts", "front parts"),
    "suffix": ("trailing part", "end part"), "suffixes": ("trailing parts", "end parts"),
    # positions and sizes
    "index": ("position", "place"), "indices": ("positions", "places"),
    "indexes": ("positions", "places"),
    # not "position": "the first place of an element" reads as a ranking
    "length": ("size",), "lengths": ("sizes",),
    # not "occurrence": "instance" and "appearance" are sideways swaps, no broader ("the following appearance
    # happens M times")
    # not "name": a number built as a key is no name (lcbpub-0695)
    "key": ("label", "tag"), "keys": ("labels", "tags"),
    # graphs, grids, misc
    "node": ("point",), "nodes": ("points",), "vertex": ("point",), "vertices": ("points",),
    # LiveCodeBench's own nouns ("a sequence A=(A_1,...,A_N)", "adjacent cells")
    # not "adjacent": "nearby" reads wrong ("slimes nearby to him")
    # not "series": a series is as ordered as a sequence (nothing gets vaguer)
    "sequence": ("collection", "group"), "sequences": ("collections", "groups"),
    "edge": ("link", "connection"), "edges": ("links", "connections"),
    "consecutive": ("neighbouring", "successive"),
    "grid": ("board", "field"),
    # story vocabulary of Codeforces/AtCoder statements, broadened only where the broader word stays true
    # (not "action": it keeps the precision; a "step" or "move" the statement already has is never drawn,
    # see lexical_vagueness._said_already)
    "operation": ("step", "move"), "operations": ("steps", "moves"),
    # not "question": "after each question" takes another sense
    "query": ("request",), "queries": ("requests",),
    # not "square": a grid's square is its cell, as precise (lcbpub-0993)
    "cell": ("spot", "place"), "cells": ("spots", "places"),
    # how far apart, said loosely; never a named metric (see lexical_vagueness.SENSE_GUARDS_BEFORE)
    "distance": ("gap", "separation"), "distances": ("gaps", "separations"),
    "interval": ("span", "stretch", "window"), "intervals": ("spans", "stretches", "windows"),
    # the places, routes and things of AtCoder stories: each broader word still names the same thing in the
    # story ("Road i connects cities A_i and B_i" -> "Route i connects locations A_i and B_i"), never a number
    # kind or a definition; not "building" or "dish" (no broader word that reads naturally), nor "person",
    # "player", "condition" or "choose" (the candidates, individual/participant/requirement/pick, say as much)
    "coordinate": ("position", "location"), "coordinates": ("positions", "locations"),
    "city": ("location", "site", "place"), "cities": ("locations", "sites", "places"),
    "road": ("route", "track"), "roads": ("routes", "tracks"),  # not "connection": "persons are on the connection"
    "station": ("stop", "site", "place"), "stations": ("stops", "sites", "places"),
    "team": ("group",), "teams": ("groups",),  # not "side": as precise
    "contest": ("event", "competition"), "contests": ("events", "competitions"),
    "score": ("result", "mark"), "scores": ("results", "marks"),
    "section": ("part", "area"), "sections": ("parts", "areas"),
    "box": ("container", "package"), "boxes": ("containers", "packages"),
    "product": ("item", "article"), "products": ("items", "goods", "articles"),
    "boolean": ("flag", "truth value"), "booleans": ("flags", "truth values"),
    "parameter": ("input",), "parameters": ("inputs",),  # not "setting": "takes n as a setting"
    "argument": ("input",), "arguments": ("inputs",),
    # the creatures, foods and workers of a story, each named by a broader word that stays true of it ("the
    # i-th slime from the left" -> "the i-th creature from the left"), and a solid said more loosely (a cuboid
    # is a block); never a permutation, a defined term of its own
    "slime": ("creature",), "slimes": ("creatures",),
    "monster": ("creature", "opponent"), "monsters": ("creatures", "opponents"),
    "enemy": ("opponent", "target"), "enemies": ("opponents", "targets"),
    "alien": ("visitor", "being"), "aliens": ("visitors", "beings"),
    "cookie": ("treat", "snack"), "cookies": ("treats", "snacks"),
    "sushi": ("food",),
    "employee": ("member", "person"), "employees": ("members", "people"),
    "programmer": ("participant", "person"), "programmers": ("participants", "people"),
    "restaurant": ("place", "shop"), "restaurants": ("places", "shops"),
    "cuboid": ("block", "solid"), "cuboids": ("blocks", "solids"),
    "card": ("piece", "token"), "cards": ("pieces", "tokens"),
    "dish": ("item", "plate"), "dishes": ("items", "plates"),
    "checkpoint": ("stop", "point"), "checkpoints": ("stops", "points"),
    "election": ("poll", "vote"), "candidate": ("option", "choice"), "candidates": ("options", "choices"),
    "festival": ("event",), "tournament": ("competition", "event"),
    "treatment": ("procedure", "action"), "treatments": ("procedures", "actions"),
    "nutrient": ("substance",), "nutrients": ("substances",),
    "villager": ("resident", "person"), "villagers": ("residents", "people"),
    "testimony": ("statement", "claim"), "testimonies": ("statements", "claims"),
    "humidifier": ("device", "machine"), "calculator": ("device", "machine"),
    "department": ("unit", "division"), "departments": ("units", "divisions"),
    "headquarters": ("office", "site"),
    "candy": ("treat", "sweet"), "candies": ("treats", "sweets"),
    "ingredient": ("supply", "material"), "ingredients": ("supplies", "materials"),
    "grams": ("units",), "liters": ("units",),
    "bag": ("container", "sack"), "capacity": ("limit", "size"),
    "rating": ("level", "standing"), "subsidy": ("allowance", "payment"),
    "stage": ("part", "step"), "stages": ("parts", "steps"),
    "song": ("piece", "item"), "songs": ("pieces", "items"),
    # not "volume": as precise as "book" (lcbpub-0268)
    "book": ("item", "title"), "books": ("items", "titles"), "giant": ("figure",), "giants": ("figures",),
    "takoyaki": ("food", "snacks"),
    # a point of geometry only (lexical_vagueness.GEOMETRY_CONTEXT), never a score's points
    "point": ("spot", "location"), "points": ("spots", "locations"),
    "printer": ("device", "machine"), "cup": ("serving", "portion"), "cups": ("servings", "portions"),
    "inning": ("round", "period"), "innings": ("rounds", "periods"),
    "food": ("item", "meal"), "foods": ("items", "meals"), "vitamin": ("nutrient",), "vitamins": ("nutrients",),
    "sock": ("item", "piece"), "socks": ("items", "pieces"), "bean": ("item", "piece"), "beans": ("items", "pieces"),
    "plan": ("event", "item"), "plans": ("events", "items"), "medicine": ("remedy", "treatment"),
    "suspects": ("people", "individuals"),
    "exam": ("test", "assessment"), "residents": ("people", "locals"), "baby": ("child",), "babies": ("children",),
    "delivery": ("service", "handling"), "shipping": ("dispatch", "handling"),
    # measures of a shape said loosely: which measure is left open ("the perimeter of a square" -> "the outer
    # measure of a square"), the shape and its sizes still given
    "area": ("size", "extent"), "areas": ("sizes", "extents"),
    "perimeter": ("outer measure", "boundary size"), "circumference": ("outer measure", "boundary size"),
    "volume": ("size", "capacity"),
    "dataset": ("data", "collection"), "item": ("thing", "entry"), "items": ("things", "entries"),
    "dictionary": ("mapping", "lookup table"),
    "equation": ("expression", "formula"), "equations": ("expressions", "formulas"),
    "profit": ("gain", "return"), "coefficients": ("factors", "values"), "coefficient": ("factor", "value"),
    "polynomial": ("expression", "formula"),
    # a named shape said as the kind of thing it is ("check if the triangle is valid" -> "check if the shape is
    # valid"): the sides, angles or sizes the task gives still fix it; not "square" or "cube" (a power, a root,
    # a magic square), nor "circle" in a graph's cycle
    "triangle": ("shape", "figure"), "triangles": ("shapes", "figures"),
    "rectangle": ("shape", "figure"), "rectangles": ("shapes", "figures"),
    "parallelogram": ("shape", "figure"), "trapezium": ("shape", "figure"), "rhombus": ("shape", "figure"),
    "cylinder": ("solid", "round solid"), "cone": ("solid", "round solid"), "sphere": ("solid", "round object"),
    "prism": ("solid", "block"), "ellipse": ("curve", "round shape"), "semicircle": ("shape", "round shape"),
    "slope": ("steepness", "incline"), "coin": ("piece",), "coins": ("pieces",),
    "parabola": ("curve",), "heap": ("structure", "container"),
    "subset": ("group", "collection"), "subsets": ("groups", "collections"),
    "bracket": ("mark", "symbol"), "brackets": ("marks", "symbols"),
    "parentheses": ("brackets", "marks"),
}

ACTION_VERBS: dict[str, tuple[str, ...]] = {  # not the request frame (compute, calculate, check, determine, find)
    "insert": ("put", "place", "add"), "inserts": ("puts", "places", "adds"), "inserting": ("putting", "placing"),
    "sort": ("arrange", "organize", "rearrange"), "sorts": ("arranges", "organizes", "rearranges"),
    "sorting": ("arranging", "organizing"),
    "remove": ("take out", "get rid of", "drop"), "removes": ("takes out", "gets rid of", "drops"),
    "removing": ("taking out", "getting rid of", "dropping"),
    "delete": ("drop", "get rid of", "clear"), "deletes": ("drops", "gets rid of"),
    "deleting": ("dropping", "getting rid of"),
    "reverse": ("flip", "invert"), "reverses": ("flips", "inverts"),
    "reversing": ("flipping", "inverting"),
    "convert": ("turn", "change", "transform"), "converts": ("turns", "changes", "transforms"),
    "converting": ("turning", "changing", "transforming"),
    "concatenate": ("join", "combine", "put together"), "concatenates": ("joins", "combines", "puts together"),
    "concatenating": ("joining", "combining", "putting together"),
    "extract": ("pull out", "take"), "extracts": ("pulls out", "takes"),
    "extracting": ("pulling out", "taking"),
    "filter": ("pick", "sift", "screen"), "filters": ("picks", "sifts", "screens"),
    "filtering": ("picking", "sifting", "screening"),
    # not "replace": swap/switch/exchange mean trading two things, "change X with Y" is not English
    "split": ("break", "divide", "cut"), "splits": ("breaks", "divides", "cuts"),
    "splitting": ("breaking", "dividing", "cutting"),
    "merge": ("combine", "join", "blend"), "merges": ("combines", "joins", "blends"),
    "merging": ("combining", "joining", "blending"),
    "append": ("attach", "add"), "appends": ("attaches", "adds"),
    "appending": ("attaching", "adding"),
    "identify": ("spot", "pick out", "recognise"), "identifies": ("spots", "picks out"),
    # not "see": "to see validity of" is no English
    "verify": ("confirm", "establish"), "verifies": ("confirms", "establishes"),
    "compare": ("look at", "weigh"), "compares": ("looks at", "weighs"),
    "swap": ("switch", "exchange"), "swaps": ("switches", "exchanges"),  # not "trade": "trades case" is no English
    "rotate": ("turn", "spin", "cycle"), "rotates": ("turns", "spins", "cycles"),
    "shift": ("move", "slide"), "shifts": ("moves", "slides"),  # not "push": "letters push down"
    "iterate": ("go", "run", "walk"), "iterates": ("goes", "runs", "walks"),
    "traverse": ("go through", "walk through", "pass through"), "traverses": ("goes through", "walks through"),
    "store": ("keep", "hold", "save"), "stores": ("keeps", "holds", "saves"),
    # not "scramble": an encoding is not a shuffle
    "encode": ("transform", "convert"), "encodes": ("transforms", "converts"),
    "decode": ("transform back", "convert back"), "decodes": ("transforms back", "converts back"),
    "contains": ("has", "holds", "includes"), "contain": ("have", "hold", "include"),
    "appears": ("shows up", "turns up", "is found"), "appear": ("show up", "turn up", "are found"),
    "occurs": ("shows up", "turns up", "happens"), "occur": ("show up", "turn up", "happen"),
    # a story's purchase: "get" says nothing of paying (the price still says what it costs)
    "buy": ("get", "obtain", "acquire"), "buys": ("gets", "obtains", "acquires"),
    "bought": ("got", "obtained", "acquired"), "buying": ("getting", "obtaining", "acquiring"),
    "purchase": ("get", "obtain", "acquire"), "purchased": ("got", "obtained", "acquired"),
    "sell": ("offer", "provide", "supply"), "sells": ("offers", "provides", "supplies"),
    "sold": ("offered", "provided", "supplied"),
    # not "arranged in a row" -> "lined up" (as precise); "placed" leaves the order to the rest of the sentence
    "arrange": ("place", "lay out", "set out"), "arranged": ("placed", "laid out", "set out"),
    "travel": ("go", "move"), "travels": ("goes", "moves"),
    # cut off, not rounded: "cut" and "shorten" leave which way open
    "truncate": ("cut", "shorten", "trim"), "truncated": ("cut", "shortened", "trimmed"),
    "truncating": ("cutting", "shortening", "trimming"),
    "represents": ("stands for", "describes"),  # not "encodes": another sense "represent": ("stand for", "describe"),
    "representing": ("standing for", "describing"),
    "toggle": ("flip", "change"), "toggles": ("flips", "changes"),
    "validates": ("reviews", "looks over"), "validate": ("review", "look over"),
    "increment": ("raise",), "decrement": ("lower",),
}

# Phrase-level rewrites (regex over prose, matched case-insensitively -> alternatives). Each keeps
# what the phrase pins (which elements, which neighbours) and says it less precisely.
PHRASES: dict[str, tuple[str, ...]] = {
    r"every two consecutive elements": ("neighboring entries", "items next to each other"),
    r"each element of": ("every item in", "each thing in"),
    r"each element in": ("every item of", "each thing in"),
    r"each character": ("every symbol", "each mark"),
    r"each word": ("every term", "each token"),
    r"the length of": ("the size of",),
    r"the sum of": ("the combined value of", "the aggregate of"),
    r"the product of": ("the result of multiplying",),
    r"a given string": ("a given sequence", "an input", "some text"),
    # not "the symbols provided": "the symbols provided has" reads wrong
    r"the given string": ("the text", "the input", "the sequence provided"),
    r"a given list": ("some items", "a collection", "the collection"),
    r"the given list": ("the items", "the items provided"),  # not "the bunch": "in the bunch of items"
    r"a list of numbers": ("some values", "a collection of numbers", "a series of values"),
    r"a list of strings": ("some pieces of text", "a collection of values", "a series of values"),
    # not "set of": a set has no order and no repeats, which a list has (HumanEval/149)
    r"list of numbers": ("collection of numbers", "series of values"),
    r"list of strings": ("collection of values", "series of values"),
    r"in the list": ("in the collection", "among the items"),  # not "in there": "items in there l"
    r"in the string": ("in the text",),  # not "in the input": the string meant may be another one
    r"the number of times": ("how often",),
    # an area or a volume is one size of a shape
    r"the area of": ("the size of", "the extent of"), r"the volume of": ("the size of", "the bulk of"),
    # not a direction ("from the left", "clockwise", "to the right of"): which end a count starts from or which
    # way round is a constraint, and "from one end" deletes it; not "the origin": "the starting point" loses that
    # it is (0, 0) (lcbpub-0721); on which surface, not a story's setting ("roulette"), which the statement defines
    r"two-dimensional plane": ("plane", "flat surface"), r"xy-plane": ("plane", "flat surface"),
    r"conveyor belt": ("belt", "moving line"), r"body temperature": ("temperature",),
    r"the Gregorian calendar": ("the calendar",),
    r"penalty kicks": ("attempts", "shots"), r"penalty kick": ("attempt", "shot"),
    r"rest areas": ("stops", "spots"), r"rest area": ("stop", "spot"),
    r"surface area": ("outer size", "outside extent"), r"the average of": ("the typical value of", "the middle value of"),
    r"binary XOR": ("bitwise combination",),
    r"floating point number": ("number", "value"),
    # a kind of thing said as the broader thing: which kind is left open (the tests still fix it)
    r"ip address": ("address", "network address"), r"roman numeral": ("numeral", "old-style numeral"),
    r"binary tree": ("tree", "tree structure"), r"standard deviation": ("spread", "variation"),
    r"electricity bill": ("bill", "charge"), r"using regex": ("using patterns", "with pattern matching"),
    r"the babylonian method": ("an iterative method", "a classic method"), r"insertion point": ("place", "spot"),
    # not "if and only if": "when" drops the "only if" half of the condition
}

# Identifier parts (after splitting on "_" and camelCase). Only parts that are informative enough
# to lose information when replaced, and never a word whose replacement names another concept.
IDENT_PARTS: dict[str, tuple[str, ...]] = {
    "sort": ("arrange", "order", "organize"), "sorted": ("arranged", "ordered"), "sorting": ("arranging",),
    "sum": ("total",), "sums": ("totals",),
    "list": ("items", "seq", "data"), "lst": ("items", "seq", "data"), "lists": ("groups", "seqs"),
    "array": ("seq", "data", "items"), "arr": ("seq", "data", "items"), "nums": ("vals", "items", "data"),
    "numbers": ("values", "items", "data"), "number": ("value", "x", "item"), "num": ("val", "x", "item"),
    "string": ("s", "data", "content"), "strings": ("texts", "items"), "str": ("data", "content"),
    # not "bit": sift_by_bit reads as a binary digit (HumanEval/7)
    "substring": ("piece", "part"), "substr": ("piece", "part"),
    "char": ("symbol", "mark"), "chars": ("symbols", "marks"), "character": ("symbol", "mark"),
    "characters": ("symbols", "marks"), "word": ("term", "token"), "words": ("terms", "tokens"),
    "sentence": ("text", "passage"), "delimeter": ("filler", "spacer", "marker"),
    "delimiter": ("filler", "spacer", "marker"), "separator": ("filler", "spacer", "marker"),
    "sep": ("filler", "spacer", "marker"), "threshold": ("limit", "bound", "level"),
    "paren": ("bracket",), "parens": ("brackets",),  # not "group": separate_paren_groups
    "remove": ("drop", "strip", "clear"),
    "delete": ("drop", "strip", "clear"), "reverse": ("flip", "mirror"), "reversed": ("flipped",),
    "insert": ("put", "place", "add"), "convert": ("turn", "change", "map"), "concatenate": ("join", "combine"),
    "extract": ("pull", "take", "get"), "filter": ("pick", "sift", "keep"), "replace": ("change", "alter"),
    "split": ("cut", "break"), "merge": ("combine", "join", "blend"),
    "generate": ("make", "build", "produce"),
    "create": ("make", "build", "produce"), "rotate": ("turn", "spin", "cycle"), "shift": ("move", "slide"),
    "swap": ("switch", "exchange"), "search": ("look", "seek", "scan"),
    # not "scramble" (an encoding is no shuffle) nor a coinage ("untransform")
    "encode": ("transform", "convert"), "decode": ("convert", "transform"), "parse": ("read", "take", "handle"),
    "validate": ("review", "vet", "test"), "tuple": ("group", "bundle"), "tuples": ("groups", "bundles"),
    "tup": ("group",), "dict": ("mapping", "lookup"), "dictionary": ("mapping",),
    "matrix": ("grid", "table"), "element": ("item", "entry"), "elements": ("items", "entries"),
    "elem": ("item", "entry"), "index": ("place", "spot"), "idx": ("place", "spot"),
    "length": ("extent", "span", "size"), "len": ("extent", "span", "size"), "key": ("label", "tag"), "keys": ("labels", "tags"),
    "value": ("quantity", "amount", "thing"), "values": ("quantities", "things"), "val": ("quantity", "thing"),
    "grid": ("board", "field"), "text": ("content", "data", "body"), "txt": ("content", "data", "body"),
    "result": ("outcome", "answer", "out"), "res": ("outcome", "answer", "out"), "total": ("amount", "tally"),
    "distance": ("gap", "span", "spread"), "matching": ("fitting",), "match": ("fit",),
    # not "occurrence": "instance" is a sideways swap
    "position": ("place", "spot"),  # not "pos": it also abbreviates positive
    "operations": ("steps", "actions", "moves"), "operation": ("step", "action", "move"),
    "fruits": ("goods", "items"), "planet": ("body",), "planets": ("bodies",),
    "grade": ("mark", "score"), "grades": ("marks", "scores"), "music": ("sound", "audio"),
    "note": ("mark", "symbol"), "notes": ("marks", "symbols"), "intersperse": ("place_between", "spread_in", "mix_in"),
    "triangle": ("shape", "figure"), "rectangle": ("shape", "figure"), "circle": ("shape", "figure"),
    "area": ("size", "extent"), "perimeter": ("outline", "boundary"), "volume": ("size", "amount"),
}

# Words whose replacement keeps the same precision (elements -> items, contains -> includes,
# checkArray -> checkSeq): a mutant may carry them, but one made of nothing else blurs nothing, so
# the mutator needs at least one other group and the judge rejects a mutant with only these.
WEAK_TERMS = frozenset("element elements contain contains represent represents representing appear appears "
                       "remove removes removing delete deletes deleting append appends appending "
                       "occur occurs consecutive convert converts converting verify verifies length lengths".split())
# Phrases whose rewrite is the same kind of swap ("the length of" -> "the size of": lcbpub-0873)
WEAK_PHRASES = frozenset({r"the length of"})
WEAK_IDENT_PARTS = frozenset("list lst lists array arr nums numbers number num elements element elem str string sum sums "
                             "strings tuple tuples tup dict dictionary res result val value values txt text idx "
                             "index len length remove delete generate create convert shift operation operations".split())

# Parts of the request frame in a name (find_max, check_valid): renaming only these blurs nothing
IDENT_FRAME = frozenset("find get check compute calculate calc do solve func function fn is has".split())


def weak_rename(old_words: list[str], new_words: list[str]) -> bool:
    """A rename that loses only request-frame or same-precision parts (checkArray -> checkSeq,
    remove_duplicates -> clear_duplicates, solve -> handle): the name says as much as before."""
    gone = set(old_words) - set(new_words)
    return gone <= IDENT_FRAME | WEAK_IDENT_PARTS

# Whole entry-point names for an entry point with no lexicon part (the study's intersperse ->
# place_between is in IDENT_PARTS); drawn by seed, each says what kind of thing the function does
# without saying what.
WHOLE_NAMES: tuple[str, ...] = ("process", "handle", "transform", "solve", "apply_rule", "work_out", "evaluate_input",
                                "compute_answer", "do_task", "helper", "get_answer")

# Parts never renamed into (they would collide with builtins or keywords when alone).
RESERVED_NEW = {"sum", "list", "str", "int", "max", "min", "len", "map", "filter", "set", "dict", "type"}


def alternatives(table: dict[str, tuple[str, ...]]) -> set[str]:
    """Every replacement a table can write (for the validator's evidence of vague wording)."""
    return {alt for alts in table.values() for alt in alts}


# --------------------------------------------------------------------------- the fallback tier
# Read only by :mod:`.lexical_fallback`, for a task the tables above leave without a term to blur (so
# no mutant they make changes). Each entry names the broader class a precise term belongs to.

# a named number family -> the class it is one of ("the nth decagonal number" -> "the nth polygonal number")
_POLYGONAL = ("polygonal", "figurate")
NUMBER_FAMILIES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys("triangular pentagonal hexagonal heptagonal octagonal nonagonal decagonal dodecagonal".split(),
                    _POLYGONAL),
    "centered hexagonal": _POLYGONAL, "centred hexagonal": _POLYGONAL, "centered square": _POLYGONAL,
    "star": ("figurate",), "rectangular": ("figurate",), "tetrahedral": ("figurate", "pyramidal"),
    "octahedral": ("figurate",), "square pyramidal": ("figurate",),
    # numbers that count arrangements ("a binomial coefficient" is one too)
    **dict.fromkeys("catalan bell eulerian delannoy lobb entringer rencontres stirling narayana binomial".split(),
                    ("combinatorial",)),
    # numbers singled out by a property of their own, which the broader word leaves unsaid
    **dict.fromkeys("keith smart lucky polite carol woodall demlo amicable armstrong harshad kaprekar disarium "
                    "lucid ludic".split(), ("special",)),
}
# a named recurrence said as the kind of sequence it is ("the fibonacci sequence" -> "the number sequence")
RECURRENCE_FAMILIES = frozenset("fibonacci lucas pell jacobsthal perrin padovan tribonacci".split())

# a superlative -> the plain adjective, which picks no one item out ("the biggest even integer" -> "a big
# even integer")
SUPERLATIVES: dict[str, tuple[str, ...]] = {
    "biggest": ("big",), "deepest": ("deep",), "closest": ("close", "nearby"), "nearest": ("nearby", "close"),
    "farthest": ("distant",), "furthest": ("distant",), "tallest": ("tall",), "heaviest": ("heavy",),
    "cheapest": ("cheap",), "earliest": ("early",), "fastest": ("fast",), "strongest": ("strong",),
    "youngest": ("young",), "oldest": ("old",), "richest": ("rich",), "widest": ("wide",),
    r"most\s+common": ("frequent",), r"most\s+frequent": ("common",),
}
# a technical term -> its broader class (pattern over prose, matched case-insensitively -> alternatives, each
# put in the plural where the pattern's group "pl" matched);
# each keeps what kind of thing is meant and leaves which one open ("the hamming distance" -> "the distance",
# "a cube of" -> "a power of", "gcd" -> "common divisor")
TECHNICAL_TERMS: dict[str, tuple[str, ...]] = {
    r"gcd": ("common divisor",), r"hcf": ("common factor",), r"lcm": ("common multiple",),
    r"(?:hamming|digit)\s+distance": ("numeric distance",),
    r"(?:manhattan|euclidean|chebyshev)\s+distance": ("geometric distance",),
    r"(?:square|cube)\s+root": ("root value",), r"arc\s+length": ("arc measure",), r"cube\s+sum": ("power sum",), r"harmonic\s+sum": ("series sum",),
    r"(?:a|an)\s+(?:square|cube)\s+of(?!\s+(?:size|side|length|edge))": ("a power of",),
    # the operation said as a combination, never "multiply x by 2" ("combine x by 2" is no English)
    r"multiplication(?=\s+of\b)": ("combination",),
    r"multiply(?=\s+(?:two|three|all|the|them)\b)(?![^.\n]*\bby\b)": ("combine",),
    r"recurrence(?:\s+relation)?": ("rule", "formula"),
    r"monotonically": ("steadily", "consistently"),
    r"radians(?=\s+to\s+degrees)": ("angles",), r"degrees(?=\s+to\s+radians)": ("angles",),
    r"diameter": ("size", "measure"), r"radius": ("size", "measure"),
    r"chinese\s+zodiac": ("zodiac calendar",), r"modular\s+inverse": ("inverse value",),
    r"(?<=given\s)expression": ("input", "text"), r"password": ("input", "text"),
    r"domino(?P<pl>es)?": ("tile", "piece"),
    r"xor": ("bitwise combination",),
    r"month\s+(?:name|number)": ("month value",),
    r"rotation(?P<pl>s)?": ("shift",), r"natural\s+number(?P<pl>s)?": ("value",),
    # the format a conversion ends in, said as "another" one ("convert rgb color to hsv color" -> "... to another
    # color model"): which one is left open
    **{rf"(?<=\bto\s){kind}\s+coordinates": ("other coordinates",) for kind in ("polar", "rectangular", "cartesian")},
    **{rf"(?<=\bto\s){model}\s+colou?r": ("another color model",) for model in ("hsv", "rgb", "hsl", "cmyk")},
    r"(?<=\bto\s)[a-z]{2,4}(?:-[a-z]{2,4}){2}\s+format": ("another format",),
    # a solid or a shape said as the kind of thing it is ("cubes of size k" -> "blocks of size k"), never a power
    r"cube(?P<pl>s)?(?=\s+of\s+size)": ("block", "solid"),
    r"(?:(?<=inside a )|(?<=inside the )|(?<=within a )|(?<=within the ))square(?!\s+(?:roots?|numbers?|matri(?:x|ces)|of)\b)":
        ("shape", "figure"),
    r"(?:gold\s+mine|tiling)\s+problem": ("classic problem", "well-known problem"),
}
