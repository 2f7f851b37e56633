// Filled in by its owner (the .tsl tokenizer).
