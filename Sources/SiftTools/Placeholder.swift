// Corpus indexing and evaluation; filled in by the CLI work.
enum SiftToolsPlaceholder {}
