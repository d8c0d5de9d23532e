import type { GuestListEntry } from '../../portal/guest-list-overview.ts';
import { dateTime } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { layout, type PageContext, PORTAL_PATH } from '../layout.ts';
import { downloads } from './keys.ts';

export const GUEST_LISTS_PATH = `${PORTAL_PATH}/guest-lists`;

function entry(context: PageContext, list: GuestListEntry, now: number): SafeHtml {
  const { t, language } = context;
  const words = t.guestLists;
  const campaign = { id: list.campaignId, title: list.title };
  // One file is the usual case, however many keys read the campaign; keys whose files differ
  // each offer theirs, said apart by the questions one has and another lacks.
  const [only] = list.downloads;
  const ways =
    list.downloads.length === 1 && only
      ? downloads(context, { id: only.keyId }, campaign)
      : html`<ul class="scope">${list.downloads.map(
          (file) =>
            html`<li>${words.fileDiffers(file.adds, file.lacks)} ${downloads(context, { id: file.keyId }, campaign)}</li>`,
        )}</ul>`;
  return html`<li class="key guest-list">
<h2>${list.title}</h2>
<p>${words.guests(list.guests, list.attending)}</p>
<p class="hint-text">${words.lastChange(words.ago(Math.max(0, now - list.lastChangeAt)), dateTime(language, list.lastChangeAt))}</p>
${ways}
</li>`;
}

/** Where a signed-in organiser lands: each campaign its keys read, and its two downloads. */
export function guestListsPage(
  context: PageContext,
  lists: GuestListEntry[],
  now: number,
): SafeHtml {
  const words = context.t.guestLists;
  return layout(
    context,
    words.title,
    html`${
      lists.length === 0
        ? html`<p>${words.none}</p>`
        : html`<p>${words.intro}</p>
<ul class="key-list guest-lists">${lists.map((list) => entry(context, list, now))}</ul>`
    }
<p class="hint">${words.forDevelopers}</p>`,
  );
}
