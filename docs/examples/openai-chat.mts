// The quickstart's OpenAI client: a chat completion that runs as a durable Weft task.
// Run with `make up` going: WEFT_API_KEY=$(cat .state/dev-api-key) npx tsx docs/examples/openai-chat.mts
import OpenAI from 'openai';

const openai = new OpenAI({ baseURL: 'http://127.0.0.1:8080/v1', apiKey: process.env.WEFT_API_KEY });
const reply = await openai.chat.completions.create({ model: 'weft-chat', messages: [{ role: 'user', content: 'What is durable execution?' }] });
console.log(reply.id, reply.choices[0]?.message.content);
