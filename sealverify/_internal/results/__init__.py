"""Layer 1, results: the report model every command produces, outcome words, vocabulary, waivers."""
