import { styleText } from 'node:util';

// What the CLI prints: data as text for a person (coloured only on a terminal), or as JSON for a
// program with `--output json`. Progress and hints go to stderr, so stdout stays the data.

export type OutputFormat = 'text' | 'json';

type Style = Parameters<typeof styleText>[0];

export interface Output {
  format: OutputFormat;
  /** Prints `value` as JSON, or the text lines `asText` makes of it. */
  data<T>(value: T, asText: (value: T) => string | string[]): void;
  /** One JSON line per item (a stream's events), or its text. */
  line<T>(value: T, asText: (value: T) => string): void;
  /** A note for the person at the terminal (stderr), whatever the format. */
  note(text: string): void;
  /** `text` styled when stdout is a terminal that takes colours. */
  style(style: Style, text: string): string;
}

export function createOutput(format: OutputFormat, colours: boolean): Output {
  const style = (how: Style, text: string) => (colours ? styleText(how, text) : text);
  return {
    format,
    style,
    data(value, asText) {
      if (format === 'json') {
        console.log(JSON.stringify(value, null, 2));
        return;
      }
      const text = asText(value);
      for (const line of Array.isArray(text) ? text : [text]) console.log(line);
    },
    line(value, asText) {
      console.log(format === 'json' ? JSON.stringify(value) : asText(value));
    },
    note(text) {
      console.error(text);
    },
  };
}
