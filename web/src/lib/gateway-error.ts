/**
 * A refusal's code and message as one line. The BFF's messages often name the code already
 * ("The gateway rejected … (VALIDATION_FAILED): …"); the code is then not said twice.
 */
export function errorText(code: string | null, message: string | null): string {
  const text = message?.trim() ?? '';
  if (code === null || code === '') return text;
  if (text === '') return code;
  return text.includes(code) ? text : `${code}: ${text}`;
}
