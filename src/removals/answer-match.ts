/**
 * How an erasure request's value is compared with stored answers: e-mail addresses without case
 * or surrounding space, phone numbers by their digits in international form (an Indonesian 08…
 * is +628…), anything else as its trimmed text.
 */
export type Needle =
  | { kind: 'email'; address: string }
  | { kind: 'phone'; digits: string }
  | { kind: 'text'; text: string };

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const PHONE = /^\+?[\d\s().-]{6,}$/;

function phoneDigits(text: string): string {
  const digits = text.replace(/\D/g, '');
  if (text.trim().startsWith('+')) return digits;
  // Indonesian national numbers: a leading 0 stands for the country code 62.
  return digits.startsWith('0') ? `62${digits.slice(1)}` : digits;
}

/** The value an operator searches for, in the form answers are compared with. */
export function needleOf(value: string): Needle {
  const text = value.trim();
  if (EMAIL.test(text)) return { kind: 'email', address: text.toLowerCase() };
  if (PHONE.test(text) && phoneDigits(text).length >= 6) {
    return { kind: 'phone', digits: phoneDigits(text) };
  }
  return { kind: 'text', text };
}

function matchesOne(needle: Needle, answer: string): boolean {
  switch (needle.kind) {
    case 'email':
      return answer.trim().toLowerCase() === needle.address;
    case 'phone':
      return PHONE.test(answer.trim()) && phoneDigits(answer) === needle.digits;
    case 'text':
      return answer.trim() === needle.text;
  }
}

/** Whether any answer of a respondent (or any choice of a multi-select one) equals the needle. */
export function answersMatch(needle: Needle, answersJson: string): boolean {
  const answers = JSON.parse(answersJson) as Record<string, unknown>;
  for (const value of Object.values(answers)) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (typeof item === 'string' && matchesOne(needle, item)) return true;
    }
  }
  return false;
}
