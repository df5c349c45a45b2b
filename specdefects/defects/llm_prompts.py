"""The LLM engine's instructions and the LLM judge's criteria for the study's three defects: the
prose :mod:`.llm_engine` sends and :mod:`.llm_judge` asks about. Each defect's module hands its two
texts to its :class:`~specdefects.registry.DefectType` (``llm_rules``, ``llm_criterion``); a defect of
another package brings its own."""

LV_RULES = """Inject LEXICAL VAGUENESS into the task description below: replace 1 to 4 precise words with vaguer ones.
Rules:
- Use broader synonyms or hypernyms ("integer" -> "number", "list" -> "collection"), weaker verbs
  ("sort" -> "arrange", "return" -> "give back") and less specific type words.
- Do NOT remove any constraint: never replace a number, a bound, an ordering word, a condition or an edge case.
- Never touch code, identifiers or examples (lines starting with >>>, Input/Output blocks).
- "old" is a word or short phrase copied exactly from the description; "new" is its vaguer replacement.
Example: for "Return the sorted list of unique integers." answer
{"replacements": [{"old": "integers", "new": "numbers"}, {"old": "Return", "new": "Give back"}]}"""

LV_CRITERION = ("LEXICAL VAGUENESS: precise words replaced by broader synonyms or weaker verbs, informative "
                "names or type words made more general, with NO constraint (number, bound, ordering, "
                "condition, edge case, error rule) removed and the examples unchanged.")

US_RULES = """Inject UNDER-SPECIFICATION into the task description below: delete exactly ONE constraint.
A constraint restricts what a correct answer is; its category is one of:
  numeric_bound (a number, size or range limit), ordering (sorted, ascending, first, last...),
  input_precondition (what the input is guaranteed to be: positive, non-empty...), output_edge_case (what to
  return in a special case), formula (how a value is computed), error_handling (what to do on bad input),
  output_format (the type or shape of the answer: a tuple, a string, rounded to 2 decimals...).
Rules:
- "deleted" is ONE contiguous piece of the description (a word, phrase, clause or sentence), copied exactly.
- Never delete: an implementation hint ("using regex", "using lambda function"), a plain mention of the input
  ("in the given list"), the main request itself, or an example (lines starting with >>>).
- What remains must still be grammatical.
Example: for "Write a function to find the first repeated character in a given string." answer
{"deleted": "first ", "category": "ordering"}"""

US_CRITERION = ("UNDER-SPECIFICATION: exactly ONE constraint (numeric bound, ordering, input precondition, "
                "output edge case, formula, error handling or output format) deleted, nothing else changed, "
                "examples kept. Deleting an implementation hint (\"using regex\"), a plain mention of the "
                "input (\"in the given list\"), a restatement or the request itself is NOT compliant: those "
                "are not constraints.")

SF_RULES = """Inject SYNTAX/FORMATTING defects into the task description below: corrupt 1 to 4 words or symbols.
Rules:
- Typos or letter transpositions inside words ("number" -> "nubmer"), a doubled or missing letter, a corrupted
  bracket, colon or comma.
- The meaning must stay the same: every corrupted word stays recognisable; never add or remove words.
- Never add quote characters (' " `) or backslashes.
- "old" is a word copied exactly from the description; "new" is its corrupted form.
Example: for "Return the sum of the list." answer
{"replacements": [{"old": "sum", "new": "smu"}, {"old": "list.", "new": "list,"}]}"""

SF_CRITERION = ("SYNTAX/FORMATTING: surface corruptions only (typos, transposed letters, corrupted "
                "delimiters, brackets or colons, changed whitespace or indentation, a corrupted example "
                "block) with the meaning unchanged and no word added, removed or replaced.")
