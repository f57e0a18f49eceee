"""The embedded offline model: GGUF files run in-process by llama.cpp (`local:` model strings).
`model.LlamaCppModel` is the pydantic-ai model; `engine` loads llama.cpp on the first request."""
