"""
A local chat model behind llama.cpp's own OpenAI-compatible HTTP server, through the xllamacpp
bindings (PyPI wheels of llama.cpp, so nothing is compiled here): `xllamacpp.Server` loads the GGUF
and serves, on its own threads, among others

    POST /v1/chat/completions  (response_format json_schema / json_object, max_tokens, usage)
    GET  /v1/models, GET /health

The model answers to `--alias` (by default the GGUF's file name without `.gguf`), in `model` of
every reply and in /v1/models. This script only sets the server up, then waits in the foreground
until SIGTERM or SIGINT and stops it, so a supervisor can run it like any other service.

Defaults, for a 2-core machine that also runs Weaviate, Temporal and the embedding servers:
- 2 threads: token generation is bound by memory bandwidth and scales to about the number of
  physical cores; more threads than cores only make them wait for each other.
- 4096 tokens of context per slot: a prompt cut to the context window (CHAT_CONTEXT_TOKENS) with a
  reply's bound fits, and the KV cache stays small (Gemma 3 270M: about 18 KB a token, 75 MB for
  4096; a 7-8B model about 128 KB a token, 512 MB).
- 1 parallel slot: on 2 cores a second slot halves the speed of each reply rather than adding
  throughput, and every slot holds its own KV cache. More cores (or a GPU) may use more.
- The host-memory prompt cache (llama.cpp's default 8 GiB ceiling) is held to CACHE_RAM_MIB: the
  engines' prompts share few long prefixes, and the memory is better left to the other services.
"""
import argparse
import os
import signal
import sys
import threading
import time

import xllamacpp

CACHE_RAM_MIB = 512


def main():
    parser = argparse.ArgumentParser(description="OpenAI-compatible chat server (llama.cpp via xllamacpp) on one GGUF model.")
    parser.add_argument("--model", required=True, help="the GGUF file to serve")
    parser.add_argument("--alias", help="the model name the server answers to (default: the file name without .gguf)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8003)
    parser.add_argument("--threads", type=int, default=2, help="threads for generation and prompt processing")
    parser.add_argument("--ctx-size", type=int, default=4096, help="context window of each slot, in tokens")
    parser.add_argument("--parallel", type=int, default=1, help="requests decoded at once (slots)")
    parser.add_argument(
        "--repeat-penalty",
        type=float,
        default=1.0,
        help="default penalty on tokens repeated within the last 64, for requests that set none (1.0: off, llama.cpp's default)",
    )
    parser.add_argument(
        "--dry-multiplier",
        type=float,
        default=0.0,
        help="default DRY ('don't repeat yourself') penalty on repeated sequences, for requests that set none (0: off, llama.cpp's default)",
    )
    args = parser.parse_args()
    if not os.path.isfile(args.model):
        parser.error(f"--model {args.model}: no such file")
    alias = args.alias or os.path.basename(args.model).removesuffix(".gguf")

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {alias}
    params.hostnames = [args.host]
    params.port = args.port
    # llama.cpp's n_ctx is the total of all slots; each slot gets n_ctx / n_parallel.
    params.n_ctx = args.ctx_size * args.parallel
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.cache_ram_mib = CACHE_RAM_MIB
    params.sampling.penalty_repeat = args.repeat_penalty
    params.sampling.dry_multiplier = args.dry_multiplier
    # The weights are read into the process's own memory instead of being mapped from the file:
    # mapped pages count as file cache, which the kernel drops when they sit unused for a while
    # (under memory pressure, or sooner where proactive reclaim runs, as on some virtual machines),
    # and the next request then waits seconds for the model to be read back from disk.
    params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE

    # Set before the model loads, so a signal during the load stops the process after it.
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    started = time.monotonic()
    server = xllamacpp.Server(params)  # returns once the model is loaded and the server listens
    print(
        f"[chat-server] {alias} ({args.model}) on {server.listening_address}: {args.threads} threads, "
        f"{args.parallel} slot(s) of {args.ctx_size} tokens, ready in {time.monotonic() - started:.1f} s",
        flush=True,
    )
    # wait() with a timeout, so the signal handler runs promptly on every Python version.
    while not stop.wait(1.0):
        pass
    print("[chat-server] stopping", flush=True)
    del server  # its destructor stops the HTTP server and the inference loop
    return 0


if __name__ == "__main__":
    sys.exit(main())
