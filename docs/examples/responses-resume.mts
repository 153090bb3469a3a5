// A durable response followed, cut off, and resumed after the last event seen: from any API process, with no gap.
// Run with `make up` going: WEFT_API_KEY=$(cat .state/dev-api-key) npx tsx docs/examples/responses-resume.mts
import OpenAI from 'openai';

const openai = new OpenAI({ baseURL: 'http://127.0.0.1:8080/v1', apiKey: process.env.WEFT_API_KEY });
const stream = await openai.responses.create({ model: 'weft-chat', input: 'Summarise the report', background: true, stream: true });
let last = -1;
let id = '';
for await (const event of stream) {
  last = event.sequence_number;
  if (event.type === 'response.created') id = event.response.id;
  if (event.type === 'response.output_text.delta') break; // the connection drops
}
// ... later, from any API process:
for await (const event of await openai.responses.retrieve(id, { stream: true, starting_after: last })) {
  console.log(event.sequence_number, event.type);
}
