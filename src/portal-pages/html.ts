/** Markup that is already safe to send: built by `html`, never from unescaped text. */
export class SafeHtml {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);
}

/** What a template may hold: text is escaped, markup is kept, nothing renders as nothing. */
export type Fragment = SafeHtml | string | number | null | undefined | false | readonly Fragment[];

function render(value: Fragment): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * The one way markup is written: every interpolated value is escaped unless it is itself the
 * result of `html`, so an attendee's or holder's text can never become markup.
 */
export function html(strings: TemplateStringsArray, ...values: Fragment[]): SafeHtml {
  let text = strings[0] as string;
  for (let index = 0; index < values.length; index += 1) {
    text += render(values[index] as Fragment) + (strings[index + 1] as string);
  }
  return new SafeHtml(text);
}
