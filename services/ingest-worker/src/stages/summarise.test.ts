import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest, StageError } from './result';
import { createSummariseStage, EXTRACTIVE_MODEL, extractiveSummary, plainText, sentencesOf } from './summarise';

const article = `# Composting at home

Composting turns kitchen scraps into rich soil. A compost heap needs green material, brown material, air and water.

Green material such as vegetable peelings and coffee grounds adds nitrogen to the compost. Brown material such as dry leaves and cardboard adds carbon.

Turn the compost every week so air reaches the middle. My neighbour has a cat.

Finished compost smells of earth and feeds the soil of the garden.`;

describe('extractive summary', () => {
  it('keeps the best-scoring sentences in their order and drops the stray one', () => {
    const { summary, tags } = extractiveSummary(
      { title: 'Composting at home', markdown: article },
      { sentences: 3, maxTags: 5 },
    );
    expect(summary).toBe(
      'A compost heap needs green material, brown material, air and water. Green material such as vegetable peelings and coffee grounds adds nitrogen to the compost. Brown material such as dry leaves and cardboard adds carbon.',
    );
    expect(summary).not.toContain('cat');
    expect(tags).toEqual(['compost', 'material', 'composting', 'adds', 'air']);
  });

  it('is deterministic and needs no network', async () => {
    const stage = createSummariseStage({ sentences: 2, maxTags: 4, llm: null });
    const a = await stage({ title: 'T', markdown: article });
    const b = await stage({ title: 'T', markdown: article });
    expect(a).toEqual(b);
    expect(a.model).toBe(EXTRACTIVE_MODEL);
    expect(a.input_digest).toBe(digest({ title: 'T', markdown: article }));
  });

  it('summarises an empty text as empty', async () => {
    const stage = createSummariseStage({ sentences: 2, maxTags: 4, llm: null });
    expect((await stage({ title: 'Only a title', markdown: '  ' })).output).toEqual({ summary: '', tags: [] });
  });

  it('strips markdown and splits sentences', () => {
    expect(plainText('## Head\n\n- a **bold** [link](http://x) and `code`')).toBe('Head\n\na bold link and code');
    expect(sentencesOf('One. Two! Three? "Four."\n\nFive')).toEqual(['One.', 'Two!', 'Three?', '"Four."', 'Five']);
  });
});

describe('LLM summary (OpenAI-compatible chat completions)', () => {
  let server: http.Server;
  let baseUrl: string;
  const requests: {
    auth: string | undefined;
    body: { model: string; messages: { role: string; content: string }[] };
  }[] = [];
  let answer: (res: http.ServerResponse) => void;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404);
          return res.end();
        }
        requests.push({ auth: req.headers.authorization, body: JSON.parse(raw) as never });
        answer(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const stage = () =>
    createSummariseStage({
      sentences: 3,
      maxTags: 3,
      llm: { baseUrl, model: 'llama3.2:1b', apiKey: 'sk-test', timeoutMs: 1000 },
    });
  const completion = (content: string) => (res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        model: 'llama3.2:1b-q4',
        choices: [{ index: 0, message: { role: 'assistant', content } }],
      }),
    );
  };

  it('asks the endpoint with the model, key and text, and takes its summary, tags and model id', async () => {
    answer = completion(
      '{"summary": "Compost feeds soil.", "tags": ["Compost", "garden", "soil", "extra", "compost"]}',
    );
    const result = await stage()({ title: 'Composting at home', markdown: article });
    expect(result.output).toEqual({ summary: 'Compost feeds soil.', tags: ['compost', 'garden', 'soil'] });
    expect(result.model).toBe('llama3.2:1b-q4');
    const last = requests.at(-1)!;
    expect(last.auth).toBe('Bearer sk-test');
    expect(last.body.model).toBe('llama3.2:1b');
    expect(last.body.messages[1]!.content).toContain('Title: Composting at home');
    expect(last.body.messages[1]!.content).toContain('kitchen scraps');
  });

  it('retries (transient) on 5xx, 429, timeouts and non-JSON answers; 4xx is permanent', async () => {
    const failure = async () =>
      (await stage()({ title: 'T', markdown: article }).catch((e: unknown) => e)) as StageError;
    answer = (res) => {
      res.writeHead(503);
      res.end();
    };
    expect(await failure()).toMatchObject({ retryable: true, message: 'LLM answered HTTP 503' });
    answer = (res) => {
      res.writeHead(401);
      res.end();
    };
    expect(await failure()).toMatchObject({ retryable: false, message: 'LLM answered HTTP 401' });
    answer = completion('Sure! Here is a summary of the text.');
    expect(await failure()).toMatchObject({ retryable: true, message: 'LLM answer is not the JSON object asked for' });
    answer = () => {}; // never answers
    const err = await failure();
    expect(err).toBeInstanceOf(StageError);
    expect(err.message).toBe('LLM timed out after 1000 ms');
  });
});
