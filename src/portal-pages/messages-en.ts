import { DISABLE_AFTER_FAILING_DAYS } from '../notifications/retry-schedule.ts';
import type { ThrottleReason } from '../portal/portal-context.ts';
import { HOUR_MS } from '../time-units.ts';
import type { FormProblem } from './form-input.ts';
import { EXPORT_WORDS } from './messages-exports.ts';
import { GUEST_LIST_WORDS } from './messages-guest-lists.ts';

/** The portal's words in English; its shape is every language's (see Messages). */
export const en = {
  languageName: 'English',
  portalName: 'Hadir portal',
  skipToContent: 'Skip to content',
  nav: {
    label: 'Portal',
    guestLists: 'Guest lists',
    keys: 'Keys',
    devices: 'Devices',
    password: 'Password',
    start: 'Get started',
    signOut: 'Sign out',
  },
  switchLanguage: 'Bahasa Indonesia',
  signedInAs: (email: string) => `Signed in as ${email}`,
  times: { never: 'never' },
  /** A wait in words: seconds under a minute, then minutes, then hours (rounded up). */
  duration: (seconds: number) => {
    if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
    if (seconds < 3600) {
      const minutes = Math.ceil(seconds / 60);
      return minutes === 1 ? '1 minute' : `${minutes} minutes`;
    }
    const hours = Math.ceil(seconds / 3600);
    return hours === 1 ? '1 hour' : `${hours} hours`;
  },
  /** Time left before something ends, for a status line ("ends in 3 hours"). */
  timeLeft: (ms: number) => {
    const hours = ms / HOUR_MS;
    if (hours < 1) {
      const minutes = Math.max(1, Math.ceil(ms / 60_000));
      return minutes === 1 ? '1 minute' : `${minutes} minutes`;
    }
    if (hours < 48) return `${Math.floor(hours)} ${Math.floor(hours) === 1 ? 'hour' : 'hours'}`;
    return `${Math.floor(hours / 24)} days`;
  },
  signIn: {
    title: 'Sign in',
    email: 'E-mail address',
    password: 'Password',
    submit: 'Continue',
    forgot: 'Forgot your password?',
    resetDone: 'Your password was reset. Sign in with the new one.',
    signedOut: 'You are signed out.',
    sessionEnded:
      'You were signed out after several wrong current passwords. Sign in again to change your password.',
    resend: 'Send a new code',
    resendHint: 'No mail after a minute? Check your spam folder, or have the code sent again.',
    codeResent: 'We sent the code again. Use the newest mail.',
    codeTitle: 'Enter the code',
    codeIntro: (email: string) =>
      `We e-mailed a 6-digit code to ${email}. It is valid for 10 minutes.`,
    code: 'Code',
    codeHint: 'Six digits, as in the e-mail.',
    remember: 'Remember this device for 30 days (no code needed here)',
    codeSubmit: 'Sign in',
    startOver: 'Use another account',
    devMail: 'Development mailbox',
  },
  forgot: {
    title: 'Forgot password',
    intro:
      'Enter the e-mail address of your account; we will send it a code to set a new password.',
    submit: 'Send code',
    resetTitle: 'Set a new password',
    resetIntro: (email: string) =>
      `If ${email} has an account, a code is on its way. It is valid for 10 minutes. The mail also holds a link that sets the password without the code.`,
    submitReset: 'Set password',
    linkIntro: 'Choose a new password for your account.',
    linkGone:
      'This link has expired or was already used. Ask for a new one with "Forgot your password?" on the sign-in page.',
  },
  password: {
    title: 'Password',
    mustChange: 'Choose a new password before anything else: your operator set a temporary one.',
    current: 'Current password',
    new: 'New password',
    again: 'New password, again',
    hint: '12 to 72 characters; not a common password. Other sessions and remembered devices end.',
    submit: 'Change password',
    changed: 'Your password was changed. Other sessions and remembered devices were signed out.',
  },
  guestLists: GUEST_LIST_WORDS.en,
  exports: EXPORT_WORDS.en,
  keys: {
    title: 'API keys',
    keyTitle: (name: string) => `Key: ${name}`,
    none: 'No keys yet. Your operator issues them.',
    lastFour: 'ends in',
    status: 'Status',
    created: 'Created',
    expires: 'Expires',
    lastUsed: 'Last used',
    reads: 'What it reads',
    noScope: 'No campaigns: this key reads nothing.',
    campaignGone: (id: string) => `campaign ${id} (deleted)`,
    totalsOnly: 'totals and attendance only',
    states: {
      active: (until: string) => `Active, expires ${until}`,
      expiring_soon: (left: string, at: string) => `Active, ends in ${left} (${at})`,
      rotating_out: (left: string, at: string) =>
        `Replaced by a new key: stops working in ${left} (${at})`,
      expired: (at: string) => `Expired ${at}`,
      revoked: (at: string) => `Revoked ${at}`,
    },
    revealTitle: 'See the key',
    revealIntro: 'Your operator issued this key for you to see once, here.',
    reveal: 'Show the key',
    rotateTitle: 'Replace the key',
    rotateLegend: 'How long should the current key keep working?',
    rotateIntro:
      'You get a new key with the same access. Choose how long the current one keeps working, so you can put the new key into every system that uses it.',
    rotateContinue: 'Continue',
    overlaps: {
      0: 'Stop it now',
      1: '1 hour',
      24: '24 hours',
      168: '7 days',
    } as Record<number, string>,
    confirmTitle: (name: string) => `Replace ${name}?`,
    confirmNow:
      'Your current key will stop working immediately. Every system using it will fail until you put in the new key.',
    confirmOverlap: (overlap: string, until: string) =>
      `Your current key keeps working for ${overlap}, until ${until}. Put the new key into every system that uses it before then; after that, the current key stops working.`,
    confirmNewKey: 'The new key is shown once, on the next page. Have a safe place ready for it.',
    confirmSubmit: 'Replace the key',
    confirmSubmitNow: 'Replace the key and stop the current one now',
    revealedTitle: 'Your key',
    once: 'Copy it now: you will not see this key again.',
    copy: 'Copy',
    copied: 'Copied',
    keyLabel: 'API key',
    back: 'All keys',
    backToKey: 'Back to the key',
    toNewKey: 'Go to the new key',
    rotatedTitle: 'New key issued',
    oldValidUntil: (until: string) =>
      `Your old key keeps working until ${until}. Put the new key into every system that uses it before then.`,
    oldStopped:
      'Your old key has stopped working. Put the new key into every system that used the old one now.',
    stepUpTitle: 'Confirm it is you',
    stepUpIntroReveal: 'We e-mailed you a 6-digit code. Enter it to see the key.',
    stepUpIntroRotate: 'We e-mailed you a 6-digit code. Enter it to replace the key.',
    stepUpSubmit: 'Confirm',
    cancel: 'Cancel',
  },
  webhooks: {
    removeTitle: 'Remove this endpoint?',
    removeConsequence: (url: string) =>
      `Hadir stops sending notifications to ${url}, and its delivery log goes with it. To receive them again you add the endpoint anew, with a new secret.`,
    removeConfirm: 'Remove the endpoint',
    failure: {
      refused: 'Your server refused the connection',
      timeout: 'Your server did not answer in time',
      lookup: 'Your server’s name could not be found',
      closed: 'Your server closed the connection before answering',
      certificate: 'Your server’s certificate is not trusted',
      unreachable: 'Your server could not be reached',
      serverError: 'Your server had an error',
      turnedAway: 'Your server turned the notification away',
      gone: 'Your server said the endpoint is gone',
      redirect: 'Your server answered with a redirect, which is not followed',
      address: 'The address may not receive notifications (private or local)',
      other: 'The delivery failed',
    } as Record<string, string>,
    title: 'Change notifications',
    intro:
      'Hadir can tell a server of yours when the campaigns this key reads change: new or edited RSVPs, removals, campaign changes. Each notification carries ids and counts, never answers, and is signed so your server can check it came from Hadir.',
    none: 'No endpoints yet.',
    events: 'Events',
    everyEvent: 'every event',
    enabled: (lastSuccess: string) => `On. Last delivered: ${lastSuccess}`,
    failing: (since: string) =>
      `On, but failing since ${since}. After ${DISABLE_AFTER_FAILING_DAYS} days of failures it is turned off.`,
    disabled: (why: string) =>
      `Off${why ? `: ${why}` : ''}. Notifications wait and are sent when you turn it on.`,
    disabledWhy: {
      'by hand': 'turned off here',
      gone: 'your server answered 410 Gone',
      failing: `it failed for ${DISABLE_AFTER_FAILING_DAYS} days without one success`,
    } as Record<string, string>,
    disabledMail: {
      subject: 'Your Hadir notification endpoint was disabled',
      text: (url: string, why: string) =>
        `Your endpoint ${url} was disabled because ${why}.\nEnable it again on your key's page in the portal; the events it missed will follow.`,
    },
    oldSecretUntil: (until: string) => `The previous secret also signs until ${until}.`,
    log: 'Delivery log',
    test: 'Send a test event',
    disable: 'Turn off',
    enable: 'Turn on',
    rotate: 'New secret',
    remove: 'Remove',
    addTitle: 'Add an endpoint',
    url: 'Address (URL) of your server',
    urlHint:
      'An https:// address on the internet, for example https://api.example.com/hadir-events',
    which: 'Which events',
    whichHint: 'Choose none to receive every event.',
    eventMeaning: {
      'respondents.changed': 'RSVPs added or changed (and how many removed)',
      'respondents.removed': 'which RSVPs were removed',
      'campaign.updated': 'a campaign or its questions changed',
      'campaign.removed': 'this key can no longer read a campaign',
      'campaign.added': 'this key can now read a campaign',
      'key.expiring': 'this key expires in 7 days, and in 1 day',
      'webhook.test': 'a test you send from here',
    } as Record<string, string>,
    add: 'Add endpoint',
    urlRefused:
      'This address cannot receive notifications. Use an https:// address of a server on the internet (not a private or local address).',
    stepUpIntroAdd:
      'We e-mailed you a 6-digit code. Enter it to add the endpoint and see its secret.',
    stepUpIntroRotate: 'We e-mailed you a 6-digit code. Enter it to see the endpoint’s new secret.',
    secretTitle: 'Signing secret',
    secretOnce: 'Copy it now: you will not see this secret again.',
    secretFor: 'For',
    secretLabel: 'Signing secret',
    verifyHint:
      'Your server checks each notification’s signature with this secret (Standard Webhooks; the Hadir SDK’s verifyWebhook does it).',
    bothSign: (until: string) =>
      `Until ${until}, every notification is signed with both the new and the previous secret: switch your server to the new one before then.`,
    tested: 'A test event is on its way. It appears in the delivery log.',
    turnedOff: 'Turned off. Notifications wait until you turn it on.',
    turnedOn: 'Turned on. Waiting notifications are being sent.',
    removed: 'Endpoint removed.',
    redelivered: (count: number) =>
      count === 1
        ? '1 notification will be sent again.'
        : `${count} notifications will be sent again.`,
    logTitle: 'Delivery log',
    logTableTitle: 'Notifications of the last 30 days, newest first',
    noDeliveries: 'Nothing was sent to this endpoint in the last 30 days.',
    when: 'When',
    event: 'Event',
    state: 'Status',
    attempts: 'Tries',
    answer: 'Last answer',
    states: {
      pending: 'Waiting',
      delivered: 'Delivered',
      failed: 'Failed (gave up)',
      skipped: 'Not sent: the key may not read it now',
    } as Record<string, string>,
    next: (at: string) => `next try ${at}`,
    redeliver: 'Send again',
    redeliverFailed: 'Send every failed notification again, from the last',
    since: { 1: 'hour', 24: '24 hours', 168: '7 days', 720: '30 days' } as Record<number, string>,
    redeliverFailedSubmit: 'Send the failed ones again',
  },
  usage: {
    quietDays: (days: number) =>
      days === 1 ? 'No requests on the other day.' : `No requests on the other ${days} days.`,
    noRequests: 'No requests in the last 30 days.',
    title: 'Usage, last 30 days',
    note: 'Counted by every server and saved once a minute: the newest requests appear within a minute or two.',
    scale: (top: string) => `Requests per day (scale up to ${top})`,
    tableTitle: 'Requests per day, newest first',
    day: 'Day',
    answered: 'Answered',
    notModified: 'Answered from cache',
    notModifiedTerm: 'HTTP 304, not counted against the rate limit',
    rateLimited: 'Refused because of the rate limit',
    rateLimitedTerm: 'HTTP 429',
    errors: 'Failed',
    rows: 'Rows served',
    explained: {
      answered: 'requests that got the guests or figures they asked for',
      notModified:
        'requests answered "nothing changed since you last asked": free, they do not count against the limit of requests a minute',
      rateLimited: 'requests turned away because the key had used its requests for that minute',
      errors:
        'requests that got no data: a key, campaign or question the key may not use, a mistyped request, or a fault on our side',
      rows: 'guests sent in all the answers of the day',
    },
    total: (requests: number, rows: number) =>
      `${requests.toLocaleString('en')} ${requests === 1 ? 'request' : 'requests'} and ${rows.toLocaleString('en')} ${rows === 1 ? 'row' : 'rows'} in 30 days`,
  },
  devices: {
    title: 'Remembered devices',
    intro: 'These devices sign in without an e-mailed code. Revoke one you do not recognise.',
    none: 'No remembered devices.',
    label: 'Device',
    created: 'Remembered',
    lastUsed: 'Last used',
    expires: 'Expires',
    revoke: 'Revoke',
    revoked: 'The device was revoked; it needs a code at its next sign-in.',
  },
  start: {
    title: 'Get started',
    intro: 'The data API is read-only JSON over HTTPS. Your key goes in the Authorization header.',
    reference: 'API reference',
    llms: 'llms.txt, the reference for language models',
    skill: 'skill.zip, a packaged skill for coding agents',
    firstRequest: 'A first request (keep your key in an environment variable, never in code):',
    yourKey: 'your key',
    curlTitle: 'With curl',
    sdkTitle: 'With the client SDK',
    sdk: 'In Node.js, with @hadir/client: it pages, waits out rate limits and retries for you.',
    syncTitle: 'With hadir-sync',
    sync: 'Keep a copy of every campaign your key reads in SQLite, and export it as CSV (a SQLite copy needs Node.js 22.16 or later):',
    syncOlderNode:
      'On Node.js 20 to 22.15, keep the copy in PostgreSQL instead (any database you may write to):',
    install: 'Install it (Node.js 20 or later), from this server, in a folder of its own:',
    notBuilt: 'This server was built without its installable packages.',
    mcpTitle: 'With an AI agent (MCP)',
    mcpHosted:
      "Agents that speak the Model Context Protocol connect to Hadir's hosted endpoint with nothing to install: its URL, and your key as a header read from the environment (HADIR_API_KEY). The tools only read, under your key's campaigns, fields and rate limit.",
    mcp: "Or run hadir-mcp on your machine, for hosts that start local servers: in the folder of the install, this prints the entry for its MCP configuration, with absolute paths, so that the agent's host may start it from any folder. Put your key in place of the placeholder. Its reads count against your key's rate limit.",
  },
  notFound: {
    title: 'Page not found',
    text: 'There is no page at this address. It may have moved, or the link may be mistyped.',
    backToKeys: 'Go to your keys',
    backToSignIn: 'Go to the sign-in page',
  },
  devMail: {
    title: 'Development mailbox',
    intro: 'Mail this server would send. Shown only in development, without SMTP_URL.',
    none: 'No mail yet.',
    to: 'To',
    subject: 'Subject',
    sent: 'Sent',
  },
  errors: {
    invalid_credentials: 'The e-mail address or password is wrong.',
    invalid_code: 'The code is wrong, used or expired. Request a new one if needed.',
    mismatch: 'The two new passwords differ. Type the same password in both fields.',
    throttled: {
      network: (wait: string) => `Too many attempts from this network. Try again in ${wait}.`,
      password: (wait: string) =>
        `Too many wrong passwords for this address from this network. Try again in ${wait}, or reset your password.`,
      code_mails: (wait: string) =>
        `Too many codes were e-mailed to this account. Use the newest code you received, or try again in ${wait}.`,
      reset_codes: (wait: string) =>
        `Too many wrong codes for this address. Use the link in the e-mail, or try again in ${wait}.`,
      test_events: (wait: string) =>
        `A test event was just sent to this endpoint. Send another in ${wait}.`,
    } as Record<ThrottleReason, (wait: string) => string>,
    badFormTitle: 'This request cannot be read',
    bad_form: (problem: FormProblem) => {
      switch (problem.kind) {
        case 'repeated':
          return `The field “${problem.field}” was sent more than once. Send the form from its page.`;
        case 'control':
          return `The field “${problem.field}” holds a character that is not allowed (a control character).`;
        case 'too_large':
          return 'The form is larger than any page of the portal sends.';
        case 'type':
          return 'The portal takes forms as its pages send them (application/x-www-form-urlencoded), nothing else.';
        case 'unreadable':
          return 'The form could not be read. Send it from its page.';
      }
    },
    account_locked:
      'This account is locked after repeated unfinished sign-ins. Ask your operator to unlock it, or reset your password.',
    length: 'Use 12 to 72 characters.',
    same_as_current: 'Choose a password different from the current one.',
    common: 'This is one of the most common passwords. Choose another.',
    current_wrong: 'The current password is wrong.',
    already_revealed:
      'This key was already revealed; it is shown only once. Rotate it for a new one.',
    not_revealable: 'This key was not issued for reveal in the portal.',
    conflict: 'This key cannot be rotated now: it was already rotated or is no longer active.',
    service_unavailable:
      'The service is busy or the code could not be e-mailed. Try again shortly.',
    form_expired: 'This form has expired. Please try again.',
    https_required: 'The portal is served over HTTPS only (or on this machine during development).',
    not_found: 'There is nothing here.',
    generic: 'Something went wrong. Try again shortly.',
    fix: 'Please fix the following:',
  },
};

/** Every text of the portal, in one language. */
export type Messages = typeof en;
