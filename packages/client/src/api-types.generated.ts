/**
 * Generated from openapi/openapi.json by `npm run openapi`. Do not edit: a test fails when this
 * file and the document disagree.
 */

export interface paths {
    "/developer/auth/change-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the password
         * @description Clears mustChangePassword, ends every other session, revokes every trusted device, voids a pending reset code, mails the holder, and gives this session a new token (the answer's session.token; the old token is refused from now on). After 5 wrong current passwords the session ends (401): sign in again.
         */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List trusted devices
         * @description Never includes their tokens.
         */
        get: operations["listDevices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/devices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a trusted device
         * @description Its next login needs an e-mailed code again.
         */
        delete: operations["revokeDevice"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/forgot-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * E-mail a password reset code
         * @description Always answers code_sent, as fast for an unknown address as for a real one; the code (10 minutes, 5 tries) goes only to an address with an account. Redeem it with reset-password.
         */
        post: operations["forgotPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's API keys
         * @description Never the keys themselves: hint is their last 4 characters.
         */
        get: operations["listKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/keys/{id}/reveal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reveal a key once
         * @description For a key the operator created with --reveal-in-portal; needs a step-up. 409 already_revealed after the first time.
         */
        post: operations["revealKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a key
         * @description Needs a step-up. The new key has the same scope and allow-lists; the old one stays valid for overlapHours (0 to 168, default 24), never past its own expiry.
         */
        post: operations["rotateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Password login
         * @description With a valid, unexpired deviceToken it returns a session; otherwise it e-mails a 6-digit code and answers a challenge to send back with it. A wrong password and an unknown e-mail answer the same 401 invalid_credentials, and the same 429 once an address has had 10 failed passwords in 15 minutes from one network. 403 account_locked only after the right password, when an operator must unlock the account.
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Ends the calling session; its token is refused from now on.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The current session principal
         * @description stepUpValidUntil is null when the session is not elevated.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/reset-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a new password with the e-mailed reset code
         * @description Ends every session and trusted device of the account, lifts a sign-in lock and mails a notice. A wrong, used or expired code answers 401 invalid_code; a refused password answers 400 and leaves the code unspent.
         */
        post: operations["resetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/step-up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request or redeem a step-up code
         * @description Without a body (or without code) it e-mails a code bound to this session; with code it elevates the session for 10 minutes. Key reveal and rotation need it.
         */
        post: operations["stepUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/auth/verify-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange the e-mailed code for a session
         * @description With rememberDevice true it also issues a trusted-device token valid 30 days. Codes: 10 minutes, the newest replaces older ones. Send the challenge from login: with it a code has 5 tries that only this client can spend; without it, 3 tries shared with anyone, which never touch the 5.
         */
        post: operations["verifyOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/v1/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The campaigns in the key's scope
         * @description A key with no campaigns gets { data: [] }, not an error.
         */
        get: operations["listCampaigns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/v1/campaigns/{id}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What changed in a campaign: upserts and removals in one feed, one page at a time
         * @description For a mirror that keeps up: each item is an upsert (the respondent as it is now, allow-listed fields only) or a removal (an id and a time), in the order Hadir applied them (changedAt, then id). A respondent edited several times is listed once, at its latest change. Without since the feed starts with every current respondent.
         *
         *     Walk it by meta.nextCursor until null, apply each item in order (upsert by id, delete removals), then keep the last page’s meta.until and send it as since next time. Nothing you already hold is read again, and a row edited during your walk moves to its end, so no walk misses it.
         *
         *     The ETag names the changes listed: send it back as If-None-Match with the same since, and a campaign with nothing new answers 304, which the rate limit does not count. Scope, allow-list, cursors and the rate limit work as for respondents. A since earlier than the feed vouches for (removals are kept REMOVALS_RETENTION_DAYS, 90 by default) answers 410 full_sync_required: walk it again without since.
         */
        get: operations["listChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/v1/campaigns/{id}/fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The questions behind a campaign's field keys
         * @description An addition within v1: the key, label, type and form position of each field in the key's allow-list, in form order. Fields outside the allow-list are not named. 403 for a campaign outside the scope, 404 for one that does not exist.
         */
        get: operations["listCampaignFields"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/v1/campaigns/{id}/removals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Respondents who left a campaign (deleted, erased or expired), one page at a time
         * @description Each item is an id to delete from your copy, with when it left; nothing else about the person. Ordered by removedAt, then id. Paging, cursors, ETags, scope and the rate limit work as for respondents.
         *
         *     Rule 5: apply removals since your last sync; on 410, re-read the campaign. Keep meta.until of a removals answer taken before a full pass, and pass it as since after the pass.
         *
         *     Removals are kept for REMOVALS_RETENTION_DAYS (90 by default). A since earlier than the feed vouches for answers 410 full_sync_required.
         */
        get: operations["listRemovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/v1/campaigns/{id}/respondents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Respondent rows of a campaign, one page at a time
         * @description Ordered by submittedAt, then id. Follow the four rules:
         *
         *     R1: fields vary per key; a field outside the allow-list or left blank is absent, never null.
         *
         *     R2: page until page >= meta.totalPages, read fresh from every response; a short page is not the last page.
         *
         *     R3: on 429 wait Retry-After seconds, then retry the same request.
         *
         *     R4: submittedAt is a last-modified time: store rows by id and upsert. For incremental syncs pass since = the largest submittedAt stored, advanced only after a whole sync succeeded.
         *
         *     Cursor paging (an addition within v1): pass meta.nextCursor as cursor= instead of page, alone or with the same since and limit, to read the rows after that page; unlike page numbers it cannot skip a row that moved because it was edited. page with cursor is a 400. Unknown query parameters are rejected.
         */
        get: operations["listRespondents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/v1/campaigns/{id}/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Attendance totals and per-question breakdowns of a campaign
         * @description totals are not subject to the allow-list and may gain counters; breakdowns cover allow-listed RADIO and SELECT fields only. 403 for a campaign outside the scope, 404 for one that does not exist.
         */
        get: operations["getCampaignSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "campaign.added": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A campaign entered the key's scope */
        post: operations["onCampaignAddedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.removed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A campaign was deleted, or left the key's scope */
        post: operations["onCampaignRemovedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A campaign, or your allow-list in it, changed */
        post: operations["onCampaignUpdatedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "key.expiring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The key expires soon: rotate it */
        post: operations["onKeyExpiringEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "respondents.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rows of a campaign were added or changed: read them with since */
        post: operations["onRespondentsChangedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "respondents.removed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Respondents left a campaign: delete these ids from your copy */
        post: operations["onRespondentsRemovedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A test sent from the portal or the CLI */
        post: operations["onWebhookTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** Campaign */
        Campaign: {
            eventDate: string | null;
            /** @description Use it in the other endpoints. */
            id: string;
            location: string | null;
            responseCount: number;
            slug: string;
            title: string;
        };
        /** CampaignAddedEvent */
        CampaignAddedEvent: {
            /** @description Newly in the key's scope (added to it, or back from deletion). */
            data: {
                /** @description The campaign, as GET /developer/v1/campaigns names it. */
                campaignId: string;
            };
            /**
             * Format: date-time
             * @description ISO-8601 in UTC.
             */
            timestamp: string;
            /** @constant */
            type: "campaign.added";
        };
        /** CampaignRemovedEvent */
        CampaignRemovedEvent: {
            data: {
                /** @description The campaign, as GET /developer/v1/campaigns names it. */
                campaignId: string;
                /** @description Deleted, or no longer in the key's scope. */
                reason: "deleted" | "out_of_scope";
            };
            /**
             * Format: date-time
             * @description ISO-8601 in UTC.
             */
            timestamp: string;
            /** @constant */
            type: "campaign.removed";
        };
        /** CampaignUpdatedEvent */
        CampaignUpdatedEvent: {
            data: {
                /** @description The campaign, as GET /developer/v1/campaigns names it. */
                campaignId: string;
                /** @description What of the campaign changed; fields: the allow-list of your key. */
                changed: ("title" | "eventDate" | "location" | "slug" | "fields")[];
            };
            /**
             * Format: date-time
             * @description ISO-8601 in UTC.
             */
            timestamp: string;
            /** @constant */
            type: "campaign.updated";
        };
        /**
         * Change
         * @description One change, told apart by type.
         */
        Change: components["schemas"]["UpsertChange"] | components["schemas"]["RemovalChange"];
        /** ChangesMeta */
        ChangesMeta: {
            limit: number;
            /** @description Pass as cursor= for the rows after this page (keyset: edits cannot make it skip a row); null on the last page. */
            nextCursor: string | null;
            page: number;
            /** @description Rows matching this request (since included). */
            total: number;
            /** @description R2: page until page >= totalPages, read fresh from every response; a short page is not the last. */
            totalPages: number;
            /**
             * Format: date-time
             * @description Every change applied up to this instant is in the feed. After the last page (nextCursor null), keep it and send it as since next time.
             */
            until: string;
        };
        /**
         * ChangesPage
         * @description One page of a campaign's changes, in the order Hadir applied them (changedAt, then id).
         */
        ChangesPage: {
            data: components["schemas"]["Change"][];
            meta: components["schemas"]["ChangesMeta"];
        };
        /** Error */
        Error: {
            error: {
                /** @description A stable snake_case code, e.g. invalid_parameter. */
                code: string;
                /** @description What is wrong, in words; may change between releases. */
                message: string;
            };
        };
        /** FieldDefinition */
        FieldDefinition: {
            /** @description The key respondents’ fields use. */
            key: string;
            /** @description The question as the form asked it. */
            label: string;
            /** @description Its place in the form, ascending. */
            position: number;
            /** @description TEXT, TEXTAREA, EMAIL, PHONE, NUMBER, DATE, RADIO, SELECT or CHECKBOX (arrays of strings); others may be added. */
            type: string;
        };
        /**
         * Fields
         * @description The campaign's fields in the key's allow-list, in form order.
         */
        Fields: {
            data: components["schemas"]["FieldDefinition"][];
        };
        /** KeyExpiringEvent */
        KeyExpiringEvent: {
            data: {
                daysLeft: number;
                /**
                 * Format: date-time
                 * @description ISO-8601 in UTC.
                 */
                expiresAt: string;
                keyId: string;
            };
            /**
             * Format: date-time
             * @description ISO-8601 in UTC.
             */
            timestamp: string;
            /** @constant */
            type: "key.expiring";
        };
        /** PageMeta */
        PageMeta: {
            limit: number;
            /** @description Pass as cursor= for the rows after this page (keyset: edits cannot make it skip a row); null on the last page. */
            nextCursor: string | null;
            page: number;
            /** @description Rows matching this request (since included). */
            total: number;
            /** @description R2: page until page >= totalPages, read fresh from every response; a short page is not the last. */
            totalPages: number;
        };
        /** Removal */
        Removal: {
            /** @description The id of the respondent who left: delete it from your copy. */
            id: string;
            /**
             * Format: date-time
             * @description When it left, in UTC.
             */
            removedAt: string;
        };
        /**
         * RemovalChange
         * @description A respondent who left (deleted, erased or expired): ids and times only.
         */
        RemovalChange: {
            /**
             * Format: date-time
             * @description When Hadir applied the change, in UTC: the feed's order, not the respondent's submittedAt.
             */
            changedAt: string;
            /** @description The id of the respondent who left: delete it from your copy. */
            id: string;
            /** @enum {string} */
            type: "removal";
        };
        /** RemovalsMeta */
        RemovalsMeta: {
            limit: number;
            /** @description Pass as cursor= for the rows after this page (keyset: edits cannot make it skip a row); null on the last page. */
            nextCursor: string | null;
            page: number;
            /** @description Rows matching this request (since included). */
            total: number;
            /** @description R2: page until page >= totalPages, read fresh from every response; a short page is not the last. */
            totalPages: number;
            /**
             * Format: date-time
             * @description Every removal up to this instant is in the feed. Keep it before a full pass; after the pass, use it as since.
             */
            until: string;
        };
        /**
         * RemovalsPage
         * @description One page of the respondents who left the campaign, oldest removal first.
         */
        RemovalsPage: {
            data: components["schemas"]["Removal"][];
            meta: components["schemas"]["RemovalsMeta"];
        };
        /** Respondent */
        Respondent: {
            /** @description Always present, whatever the allow-list. */
            attendanceStatus: "YES" | "NO" | "MAYBE";
            /** @description R1: only allow-listed, answered keys; a key is never null. Multi-select answers are arrays; numbers and booleans arrive as strings. ipAddress, token and guestToken are never present. */
            fields: {
                [key: string]: string | string[];
            };
            /** @description Stable and permanent: the upsert key (R4). */
            id: string;
            /**
             * Format: date-time
             * @description LAST-MODIFIED time: set at first submission and bumped on every edit (R4).
             */
            submittedAt: string;
        };
        /** RespondentsChangedEvent */
        RespondentsChangedEvent: {
            data: {
                /** @description The campaign, as GET /developer/v1/campaigns names it. */
                campaignId: string;
                /** @description Rows added or changed. */
                changed: number;
                /** @description Rows removed. */
                removed: number;
                /**
                 * Format: date-time
                 * @description Pass as since to read every row this change added or changed.
                 */
                since: string;
            };
            /**
             * Format: date-time
             * @description ISO-8601 in UTC.
             */
            timestamp: string;
            /** @constant */
            type: "respondents.changed";
        };
        /**
         * RespondentsPage
         * @description One page of respondents.
         */
        RespondentsPage: {
            data: components["schemas"]["Respondent"][];
            meta: components["schemas"]["PageMeta"];
        };
        /** RespondentsRemovedEvent */
        RespondentsRemovedEvent: {
            data: {
                /** @description The campaign, as GET /developer/v1/campaigns names it. */
                campaignId: string;
                /** @description Respondents who left at removedAt: delete them from your copy. */
                ids: string[];
                /**
                 * Format: date-time
                 * @description ISO-8601 in UTC.
                 */
                removedAt: string;
            };
            /**
             * Format: date-time
             * @description ISO-8601 in UTC.
             */
            timestamp: string;
            /** @constant */
            type: "respondents.removed";
        };
        /**
         * Summary
         * @description The campaign summary.
         */
        Summary: {
            /** @description Field key to (answer value to count), for allow-listed RADIO and SELECT fields only; {} when none qualifies. */
            breakdowns: {
                [key: string]: {
                    [key: string]: number;
                };
            };
            campaign: {
                id: string;
                slug: string;
                title: string;
            };
            /** @description Not subject to the allow-list. New counters may appear. */
            totals: {
                attending: number;
                /** @description An added counter (spec, Versioning). */
                maybe: number;
                notAttending: number;
                responses: number;
            } & {
                [key: string]: number;
            };
        };
        /**
         * UpsertChange
         * @description A respondent added or edited: upsert it by id (R4). Only its latest state is listed.
         */
        UpsertChange: {
            /**
             * Format: date-time
             * @description When Hadir applied the change, in UTC: the feed's order, not the respondent's submittedAt.
             */
            changedAt: string;
            /** @description The respondent's id, as in respondent.id. */
            id: string;
            respondent: components["schemas"]["Respondent"];
            /** @enum {string} */
            type: "upsert";
        };
        /** WebhookTestEvent */
        WebhookTestEvent: {
            data: {
                endpointId: string;
            };
            /**
             * Format: date-time
             * @description ISO-8601 in UTC.
             */
            timestamp: string;
            /** @constant */
            type: "webhook.test";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description private, no-cache: keep answers only in your own store and revalidate them. */
        "Cache-Control": string;
        /** @description Strong validator of this answer: send it back as If-None-Match to get a 304. */
        ETag: string;
        /** @description Requests allowed per minute on this answer's budget (the key's, or the client address's without a valid key). */
        "RateLimit-Limit": number;
        /** @description Requests left in the current minute. */
        "RateLimit-Remaining": number;
        /** @description Seconds until the budget is full again. */
        "RateLimit-Reset": number;
        /** @description Seconds to wait before sending the same request again. */
        "Retry-After": number;
        /** @description Identifies this request in the service logs; quote it when reporting a problem. */
        "X-Request-Id": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    currentPassword: string;
                    /** @description 12 to 72 characters (Unicode code points after NFKC); not a common password. */
                    newPassword: string;
                };
            };
        };
        responses: {
            /** @description The password is changed; other sessions and trusted devices are gone, and this session continues under the new token in session (the old one is refused from now on). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            /**
                             * Format: date-time
                             * @description The absolute end (12 h); 30 idle minutes also end it.
                             */
                            expiresAt: string;
                            /** @description hadir_ses_ + 64 hex: send as Authorization: Bearer on protected calls. */
                            token: string;
                        };
                        /** @enum {string} */
                        status: "password_changed";
                    };
                };
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDevices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's trusted devices, newest first. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            expiresAt: string;
                            id: string;
                            label: string;
                            lastUsedAt: string | null;
                        }[];
                    };
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeDevice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The device is revoked. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "revoked";
                    };
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    forgotPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The account e-mail address. */
                    email: string;
                };
            };
        };
        responses: {
            /** @description The same answer whether or not the address has an account; a code goes to it when it has. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "code_sent";
                    };
                };
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's keys, without their secrets. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            campaigns: {
                                fields: string[];
                                id: string;
                            }[];
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            expiresAt: string;
                            /** @description The last 4 characters of the key. */
                            hint: string;
                            id: string;
                            lastUsedAt: string | null;
                            name: string;
                            status: "active" | "revoked" | "expired";
                        }[];
                    };
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revealKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key, shown this once. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        key: string;
                    };
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict, already_revealed or not_revealable. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default 24 */
                    overlapHours?: number;
                };
            };
        };
        responses: {
            /** @description The new key, shown this once, and when the old one stops working. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        key: string;
                        /** Format: date-time */
                        previousKeyValidUntil: string;
                    };
                };
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict, already_revealed or not_revealable. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A trusted-device token issued by verify-otp. */
                    deviceToken?: string;
                    /** @description The account e-mail address. */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description code_sent: a code went to the e-mail address; send challenge back with it to verify-otp. authenticated: the trusted device skipped the code. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The challenge login answered with: only the client that proved the password may spend all of the code's tries. */
                        challenge: string;
                        /** @enum {string} */
                        status: "code_sent";
                    } | {
                        session: {
                            /**
                             * Format: date-time
                             * @description The absolute end (12 h); 30 idle minutes also end it.
                             */
                            expiresAt: string;
                            /** @description hadir_ses_ + 64 hex: send as Authorization: Bearer on protected calls. */
                            token: string;
                        };
                        /** @enum {string} */
                        status: "authenticated";
                    };
                };
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session has ended. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "signed_out";
                    };
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed-in account. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        email: string;
                        id: string;
                        mustChangePassword: boolean;
                        stepUpValidUntil: string | null;
                    };
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resetPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The 6-digit code from the e-mail. */
                    code: string;
                    /** @description The account e-mail address. */
                    email: string;
                    /** @description 12 to 72 characters (Unicode code points after NFKC); not a common password. */
                    newPassword: string;
                };
            };
        };
        responses: {
            /** @description The password is set; every session and trusted device of the account is gone. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "password_reset";
                    };
                };
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    stepUp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The 6-digit code from the e-mail. */
                    code?: string;
                };
            };
        };
        responses: {
            /** @description code_sent: a code went to the e-mail address; verified: the session is elevated until validUntil. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "code_sent";
                    } | {
                        /** @enum {string} */
                        status: "verified";
                        /** Format: date-time */
                        validUntil: string;
                    };
                };
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifyOtp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The challenge login answered with: only the client that proved the password may spend all of the code's tries. */
                    challenge?: string;
                    /** @description The 6-digit code from the e-mail. */
                    code: string;
                    /** @description A coarse label, e.g. "Firefox on Linux". */
                    deviceLabel?: string;
                    /** @description The account e-mail address. */
                    email: string;
                    /** @default false */
                    rememberDevice?: boolean;
                };
            };
        };
        responses: {
            /** @description A new session, and a trusted-device token when rememberDevice was true. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            /**
                             * Format: date-time
                             * @description The absolute end (12 h); 30 idle minutes also end it.
                             */
                            expiresAt: string;
                            /** @description hadir_ses_ + 64 hex: send as Authorization: Bearer on protected calls. */
                            token: string;
                        };
                        trustedDevice?: {
                            /** Format: date-time */
                            expiresAt: string;
                            id: string;
                            label: string;
                            /** @description hadir_dev_ + 64 hex, shown once: send as deviceToken on later logins. */
                            token: string;
                        };
                    };
                };
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCampaigns: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaigns in the key's scope. */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Campaign"][];
                    };
                };
            };
            /** @description Not Modified: the ETag in If-None-Match is current. No body; not counted against the rate limit. */
            304: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listChanges: {
        parameters: {
            query?: {
                /** @description 1-based page number in decimal digits; default 1. */
                page?: number;
                /** @description Changes per page in decimal digits, 1 to 200; default 200, or with a cursor the cursor's. */
                limit?: number;
                /** @description meta.nextCursor of the previous page: the items strictly after it, in the same order. Instead of page. A cursor is signed and carries the since and limit of the request that returned it, so it may be sent alone; a since or limit sent beside it must be those, and a cursor of another list or campaign is refused, each with 400. */
                cursor?: string;
                /** @description Only changes Hadir applied strictly after this instant: the meta.until of your last walk of this feed, never a submittedAt. Without it, the feed starts with every current respondent. Older than the feed vouches for: 410 full_sync_required. */
                since?: string;
            };
            header?: never;
            path: {
                /** @description A campaign id from GET /developer/v1/campaigns. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of a campaign's changes, in the order Hadir applied them (changedAt, then id). */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangesPage"];
                };
            };
            /** @description Not Modified: the ETag in If-None-Match is current. No body; not counted against the rate limit. */
            304: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description full_sync_required: the removals feed cannot vouch for removals since that instant (tombstones that old were purged, or were not kept yet). Re-read the whole campaign without since, then follow the feed from the until of a removals answer taken before that pass. */
            410: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCampaignFields: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A campaign id from GET /developer/v1/campaigns. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaign's fields in the key's allow-list, in form order. */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Fields"];
                };
            };
            /** @description Not Modified: the ETag in If-None-Match is current. No body; not counted against the rate limit. */
            304: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRemovals: {
        parameters: {
            query?: {
                /** @description 1-based page number in decimal digits; default 1. */
                page?: number;
                /** @description Removals per page in decimal digits, 1 to 200; default 200, or with a cursor the cursor's. */
                limit?: number;
                /** @description meta.nextCursor of the previous page: the items strictly after it, in the same order. Instead of page. A cursor is signed and carries the since and limit of the request that returned it, so it may be sent alone; a since or limit sent beside it must be those, and a cursor of another list or campaign is refused, each with 400. */
                cursor?: string;
                /** @description Only removals strictly after this instant (your last removals watermark). Older than the feed vouches for: 410 full_sync_required. */
                since?: string;
            };
            header?: never;
            path: {
                /** @description A campaign id from GET /developer/v1/campaigns. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the respondents who left the campaign, oldest removal first. */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RemovalsPage"];
                };
            };
            /** @description Not Modified: the ETag in If-None-Match is current. No body; not counted against the rate limit. */
            304: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description full_sync_required: the removals feed cannot vouch for removals since that instant (tombstones that old were purged, or were not kept yet). Re-read the whole campaign without since, then follow the feed from the until of a removals answer taken before that pass. */
            410: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRespondents: {
        parameters: {
            query?: {
                /** @description Only respondents with this attendance: YES, NO or MAYBE, or a comma list of them (YES,MAYBE). */
                attendanceStatus?: string;
                /** @description Only respondents whose answers pass these tests, by field key (an addition within v1): `answers[menu]=Vegetarian`: the answer equals the value, case ignored; repeated (`answers[menu]=Sate&answers[menu]=Soto`), any of the values. `answers[catatan][contains]=kacang`: the answer holds the text, case ignored. A multi-select answer passes when one of its choices does; a blank answer never does. Every test must pass, as must attendanceStatus. At most 20 values in all, each 1 to 100 characters, and 1,500 bytes of field keys and values together (a cursor carries them). A test on a field this key may not read (outside its allow-list, never served, or not in the campaign's form) is refused with 400 invalid_parameter, in the same words whichever it is. */
                answers?: {
                    [key: string]: string[] | {
                        contains: string[];
                    };
                };
                /** @description 1-based page number in decimal digits; default 1. */
                page?: number;
                /** @description Rows per page in decimal digits, 1 to 200; default 50, or with a cursor the cursor's. */
                limit?: number;
                /** @description meta.nextCursor of the previous page: the items strictly after it, in the same order. Instead of page. A cursor is signed and carries the since and limit of the request that returned it, so it may be sent alone; a since or limit sent beside it must be those, and a cursor of another list or campaign is refused, each with 400. */
                cursor?: string;
                /** @description Only rows whose submittedAt is strictly after this instant. ISO-8601 date-time with Z or an offset. */
                since?: string;
            };
            header?: never;
            path: {
                /** @description A campaign id from GET /developer/v1/campaigns. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of respondents. */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RespondentsPage"];
                };
            };
            /** @description Not Modified: the ETag in If-None-Match is current. No body; not counted against the rate limit. */
            304: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCampaignSummary: {
        parameters: {
            query?: {
                /** @description Only respondents with this attendance: YES, NO or MAYBE, or a comma list of them (YES,MAYBE). */
                attendanceStatus?: string;
                /** @description Only respondents whose answers pass these tests, by field key (an addition within v1): `answers[menu]=Vegetarian`: the answer equals the value, case ignored; repeated (`answers[menu]=Sate&answers[menu]=Soto`), any of the values. `answers[catatan][contains]=kacang`: the answer holds the text, case ignored. A multi-select answer passes when one of its choices does; a blank answer never does. Every test must pass, as must attendanceStatus. At most 20 values in all, each 1 to 100 characters, and 1,500 bytes of field keys and values together (a cursor carries them). A test on a field this key may not read (outside its allow-list, never served, or not in the campaign's form) is refused with 400 invalid_parameter, in the same words whichever it is. */
                answers?: {
                    [key: string]: string[] | {
                        contains: string[];
                    };
                };
            };
            header?: never;
            path: {
                /** @description A campaign id from GET /developer/v1/campaigns. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaign summary. */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Summary"];
                };
            };
            /** @description Not Modified: the ETag in If-None-Match is current. No body; not counted against the rate limit. */
            304: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry. */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials. */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry. */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no such campaign (or it was deleted), key, device or route. Do not retry. */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it. */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert. */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    onCampaignAddedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The message id: the same on every attempt; skip one already taken. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed. */
                "webhook-timestamp": string;
                /** @description v1, then the HMAC-SHA256 under the endpoint's secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CampaignAddedEvent"];
            };
        };
        responses: {
            /** @description Taken: any 2xx ends the retries of this message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the message is retried on the schedule, then given up. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onCampaignRemovedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The message id: the same on every attempt; skip one already taken. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed. */
                "webhook-timestamp": string;
                /** @description v1, then the HMAC-SHA256 under the endpoint's secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CampaignRemovedEvent"];
            };
        };
        responses: {
            /** @description Taken: any 2xx ends the retries of this message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the message is retried on the schedule, then given up. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onCampaignUpdatedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The message id: the same on every attempt; skip one already taken. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed. */
                "webhook-timestamp": string;
                /** @description v1, then the HMAC-SHA256 under the endpoint's secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CampaignUpdatedEvent"];
            };
        };
        responses: {
            /** @description Taken: any 2xx ends the retries of this message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the message is retried on the schedule, then given up. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onKeyExpiringEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The message id: the same on every attempt; skip one already taken. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed. */
                "webhook-timestamp": string;
                /** @description v1, then the HMAC-SHA256 under the endpoint's secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KeyExpiringEvent"];
            };
        };
        responses: {
            /** @description Taken: any 2xx ends the retries of this message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the message is retried on the schedule, then given up. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onRespondentsChangedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The message id: the same on every attempt; skip one already taken. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed. */
                "webhook-timestamp": string;
                /** @description v1, then the HMAC-SHA256 under the endpoint's secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RespondentsChangedEvent"];
            };
        };
        responses: {
            /** @description Taken: any 2xx ends the retries of this message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the message is retried on the schedule, then given up. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onRespondentsRemovedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The message id: the same on every attempt; skip one already taken. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed. */
                "webhook-timestamp": string;
                /** @description v1, then the HMAC-SHA256 under the endpoint's secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RespondentsRemovedEvent"];
            };
        };
        responses: {
            /** @description Taken: any 2xx ends the retries of this message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the message is retried on the schedule, then given up. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onWebhookTestEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The message id: the same on every attempt; skip one already taken. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed. */
                "webhook-timestamp": string;
                /** @description v1, then the HMAC-SHA256 under the endpoint's secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookTestEvent"];
            };
        };
        responses: {
            /** @description Taken: any 2xx ends the retries of this message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: the message is retried on the schedule, then given up. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
