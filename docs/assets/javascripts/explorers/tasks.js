// The toy tasks of the Train page (encoder/tasks.py), as the attention explorer and Break it
// read a typed sequence: the expected output of each task, the ids of the typed text, and the
// words both explorers say about a sequence.
export const EXPECTED = {
  reverse: (ids) => [...ids].reverse(),
  sort: (ids) => [...ids].sort((a, b) => a - b),
  count: (ids) => ids.map((t) => ids.filter((u) => u === t).length),
};

/** What both explorers say about a sequence (common.js strings: an explorer's own come after). */
export const SEQUENCES = {
  en: {
    input: "Sequence (digits 1 to 9)",
    rowInput: "Input",
    rowExpected: "Expected",
    empty: "Type a sequence: digits from 1 to 9.",
    padding: "0 is the padding id, not a token: use the digits 1 to 9.",
    invalid: (c) => `“${c}” is not in the vocabulary: use the digits 1 to 9.`,
  },
  zh: {
    input: "序列（1 到 9 的数字）",
    rowInput: "输入",
    rowExpected: "正确答案",
    empty: "请输入一个序列：1 到 9 的数字。",
    padding: "0 是填充 id，不是 token：请使用 1 到 9 的数字。",
    invalid: (c) => `“${c}”不在词表中：请使用 1 到 9 的数字。`,
  },
};

/** The ids of the typed text, or {error} (a message, from t: SEQUENCES and the explorer's
 * tooLong) when it is not a valid sequence. */
export function parse(text, maxLen, t) {
  const chars = [...text].filter((c) => !/[\s,;]/.test(c));
  if (!chars.length) return { error: t.empty };
  const bad = chars.find((c) => !/^[1-9]$/.test(c));
  if (bad !== undefined) return { error: bad === "0" ? t.padding : t.invalid(bad) };
  if (chars.length > maxLen) return { error: t.tooLong(chars.length, maxLen) };
  return { ids: chars.map(Number) };
}
