// zxcvbn in a child process (password-strength.ts starts it on demand and ends it when idle). Its
// dictionaries take some 60 MiB once loaded: held here, they go when the process ends, instead of
// staying in the BFF for good (they pushed its resting memory, and the CSV export's peak, past
// 200 MB). A worker thread was tried first: its end left 40-odd MiB with the BFF's allocator,
// more after each start. No relative imports: Node runs this file as TypeScript in the tests, as
// JavaScript once built.
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';

/** What the BFF asks: a password, weighed with the owner's words. */
export interface StrengthQuestion {
  id: number;
  password: string;
  words: string[];
}

/** What it is told: zxcvbn's score (0 to 4) and its advice. */
export interface StrengthAnswer {
  id: number;
  score: number;
  warning: string | null;
  suggestions: string[];
}

const zxcvbn = new ZxcvbnFactory({
  translations: en.translations,
  graphs: common.adjacencyGraphs,
  dictionary: { ...common.dictionary, ...en.dictionary },
});

process.on('message', (question: StrengthQuestion) => {
  const { score, feedback } = zxcvbn.check(question.password, question.words);
  const answer: StrengthAnswer = {
    id: question.id,
    score,
    warning: feedback.warning,
    suggestions: feedback.suggestions,
  };
  process.send?.(answer);
});
// The BFF gone, so is the reason to stay.
process.on('disconnect', () => {
  process.exit(0);
});
