# The OpenAI Python client against Weft: a streamed chat completion that runs as a durable Weft task.
# Run with `make up` going and the `openai` package installed:
#   WEFT_API_KEY=$(cat .state/dev-api-key) python3 docs/examples/openai_chat.py
import os

from openai import OpenAI

client = OpenAI(base_url="http://127.0.0.1:8080/v1", api_key=os.environ["WEFT_API_KEY"])
stream = client.chat.completions.create(model="weft-chat", messages=[{"role": "user", "content": "Hi"}], stream=True)
for chunk in stream:
    print(chunk.choices[0].delta.content or "", end="")
print()
