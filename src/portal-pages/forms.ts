import { PASSWORD_MIN_LENGTH } from '../accounts/passwords.ts';
import { type Fragment, html, type SafeHtml } from './html.ts';
import type { PageContext } from './layout.ts';

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'hidden';
  value?: string;
  autocomplete?: string;
  hint?: string;
  /** Shown under the field and tied to it, so a screen reader reads it with the field. */
  error?: string;
  required?: boolean;
  inputMode?: 'numeric';
  pattern?: string;
  maxLength?: number;
  minLength?: number;
  autofocus?: boolean;
}

/** A labelled input with its hint and error tied to it by aria-describedby. */
export function field(options: FieldOptions): SafeHtml {
  const id = `field-${options.name}`;
  const hintId = options.hint ? `${id}-hint` : undefined;
  const errorId = options.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return html`<div class="field${options.error ? ' invalid' : ''}">
  <label for="${id}">${options.label}</label>
  ${options.hint ? html`<p class="hint" id="${hintId}">${options.hint}</p>` : null}
  ${options.error ? html`<p class="error" id="${errorId}">${options.error}</p>` : null}
  <input id="${id}" name="${options.name}" type="${options.type ?? 'text'}"${
    options.value !== undefined ? html` value="${options.value}"` : ''
  }${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}${
    options.required === false ? '' : html` required`
  }${options.inputMode ? html` inputmode="${options.inputMode}"` : ''}${
    options.pattern ? html` pattern="${options.pattern}"` : ''
  }${options.maxLength ? html` maxlength="${options.maxLength}"` : ''}${
    options.minLength ? html` minlength="${options.minLength}"` : ''
  }${describedBy ? html` aria-describedby="${describedBy}"` : ''}${
    options.error ? html` aria-invalid="true"` : ''
  }${options.autofocus ? html` autofocus` : ''}>
</div>`;
}

/** The 6-digit code field: pastes whole, fills from the mail on phones. */
export function codeField(
  label: string,
  hint: string,
  error?: string,
  autofocus = true,
  value?: string,
): SafeHtml {
  return field({
    name: 'code',
    label,
    hint,
    // What was typed stays in the field after an error, to be corrected rather than retyped.
    ...(value ? { value } : {}),
    autocomplete: 'one-time-code',
    inputMode: 'numeric',
    // Room for a pasted "123 456"; the server keeps the digits.
    maxLength: 12,
    minLength: 6,
    autofocus,
    ...(error ? { error } : {}),
  });
}

export function submit(
  label: string,
  kind: 'primary' | 'secondary' | 'danger' = 'primary',
): SafeHtml {
  return html`<button type="submit" class="${kind}">${label}</button>`;
}

export function form(action: string, csrf: SafeHtml, body: Fragment, className?: string): SafeHtml {
  return html`<form method="post" action="${action}"${className ? html` class="${className}"` : ''}>${csrf}
${body}
</form>`;
}

/**
 * A new password, typed twice: a typo in a field nobody can see is caught before it is set (see
 * newPasswordOf). The refusal, when there is one, sits with the first field.
 */
export function newPasswordFields(
  context: PageContext,
  error: string | undefined,
  autofocus: boolean,
): SafeHtml {
  const { t } = context;
  return html`${field({ name: 'newPassword', label: t.password.new, type: 'password', autocomplete: 'new-password', hint: t.password.hint, minLength: PASSWORD_MIN_LENGTH, autofocus, ...(error ? { error } : {}) })}
${field({ name: 'newPasswordAgain', label: t.password.again, type: 'password', autocomplete: 'new-password', minLength: PASSWORD_MIN_LENGTH })}`;
}
