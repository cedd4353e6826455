"""Words every output shares: number formats, the sanitizer, and the sentences of each analysis family."""
