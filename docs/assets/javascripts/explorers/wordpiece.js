// BERT's WordPiece for uncased English, as Hugging Face's tokenizers reads a sentence with the
// model's tokenizer.json: its special tokens ([CLS], [SEP], …) as they are typed; the rest
// normalised (BertNormalizer: control characters dropped, white space made a space, a space on
// either side of each CJK character, accents stripped, lower case), cut at white space and
// around each punctuation mark (BertPreTokenizer), then each word cut into the longest pieces of
// the vocabulary, from the left, "##" before a piece that continues a word (WordPiece; a word
// longer than 100 characters, or one with no such cut, is [UNK]); then [CLS] … [SEP].
// The browser tests hold it to tokenizers' ids on every English line of the site.

// Rust's char::is_whitespace (Unicode's White_Space), which JavaScript's \s is not: \s takes
// U+FEFF, and not U+0085.
const SPACE = "\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const WHITE = new RegExp(`[${SPACE}]`, "u");
// Dropped: NUL, U+FFFD and every "other" character (Cc, Cf, Cs, Co, Cn) but tab and newlines.
const CONTROL = /[\0\ufffd]|(?![\t\n\r])\p{C}/u;
// The CJK ideographs that BERT's tokenizer cuts one by one.
const CJK = /[\u4e00-\u9fff\u3400-\u4dbf\u{20000}-\u{2a6df}\u{2a700}-\u{2b73f}\u{2b740}-\u{2b81f}\u{2b920}-\u{2ceaf}\uf900-\ufaff\u{2f800}-\u{2fa1f}]/u;
// ASCII punctuation (with $ + < = > ^ ` | ~, symbols to Unicode) or Unicode's P*.
const PUNCTUATION = /[!-/:-@[-`{-~]|\p{P}/u;
const MARK = /\p{Mn}/gu;
const MAX_CHARS = 100; // a longer word is [UNK]

/** BertNormalizer: the text as the pre-tokenizer gets it. */
function normalize(text) {
  let out = "";
  for (const c of text) {
    if (CONTROL.test(c)) continue;
    if (WHITE.test(c)) out += " ";
    else if (CJK.test(c)) out += ` ${c} `;
    else out += c;
  }
  // Accents stripped (NFD, then no non-spacing mark), then lower case one character at a time:
  // Rust's char::to_lowercase, which has no rule for a Greek final sigma.
  return Array.from(out.normalize("NFD").replace(MARK, ""), (c) => c.toLowerCase()).join("");
}

/** BertPreTokenizer: the words of normalised text, each punctuation mark a word of its own. */
function words(text) {
  const found = [];
  let word = "";
  for (const c of text) {
    if (WHITE.test(c) || PUNCTUATION.test(c)) {
      if (word) found.push(word);
      word = "";
      if (!WHITE.test(c)) found.push(c);
    } else word += c;
  }
  if (word) found.push(word);
  return found;
}

/** A tokenizer from the vocabulary (token -> id; its order is the ids) and its special tokens. */
export function wordPiece(vocab, special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]) {
  const ids = new Map(vocab.map((token, i) => [token, i]));
  const id = (token) => ids.get(token);
  const unk = id("[UNK]");
  const escaped = special.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const specials = new RegExp(`(${escaped.join("|")})`);

  function pieces(word) {
    const chars = Array.from(word);
    if (chars.length > MAX_CHARS) return [unk];
    const found = [];
    for (let start = 0; start < chars.length; ) {
      let end = chars.length;
      let piece;
      for (; end > start; end -= 1) {
        piece = id((start > 0 ? "##" : "") + chars.slice(start, end).join(""));
        if (piece !== undefined) break;
      }
      if (end === start) return [unk]; // no piece of the vocabulary starts here
      found.push(piece);
      start = end;
    }
    return found;
  }

  /** The ids of `text` without [CLS] and [SEP]. */
  function encode(text) {
    return text
      .split(specials)
      .flatMap((part, i) => (i % 2 ? [id(part)] : words(normalize(part)).flatMap(pieces)));
  }

  return {
    encode,
    /** [CLS] + the ids of `text` + [SEP], at most `max` ids: {ids, n} (n: the ids of the whole
     * text, [CLS] and [SEP] included, before the cut). */
    sentence(text, max = Infinity) {
      const inner = encode(text);
      const n = inner.length + 2;
      return { ids: [id("[CLS]"), ...inner.slice(0, Math.max(0, max - 2)), id("[SEP]")], n };
    },
    token: (i) => vocab[i],
    unk,
  };
}
