/**
 * Generated from openapi/ingest.json by `npm run openapi`. Do not edit: a test fails when this
 * file and the document disagree.
 */

export interface paths {
    "/batches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Apply a batch of records, all or nothing, once per Idempotency-Key */
        post: operations["sendBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        BatchLine: ({
            /** @constant */
            type: "campaign";
            /** @description 1 to 128 characters from A-Z a-z 0-9 . _ ~ - */
            id: string;
            /** @description Not blank. */
            slug: string;
            /** @description Not blank. */
            title: string;
            eventDate?: string | null;
            location?: string | null;
            /** @description The campaign’s questions in form order, each key once; without it, the ones it has stay. */
            fields?: {
                /** @description 1 to 128 characters, not blank, without commas or control characters. */
                key: string;
                /** @description The key when absent. */
                label?: string;
                type: "TEXT" | "TEXTAREA" | "EMAIL" | "PHONE" | "NUMBER" | "DATE" | "RADIO" | "SELECT" | "CHECKBOX";
            }[];
            /** @constant */
            deleted?: false;
        } | {
            /** @constant */
            type: "campaign";
            /** @description 1 to 128 characters from A-Z a-z 0-9 . _ ~ - */
            id: string;
            /**
             * @description Removes it.
             * @constant
             */
            deleted: true;
        }) | ({
            /** @constant */
            type: "respondent";
            /** @description 1 to 128 characters from A-Z a-z 0-9 . _ ~ - */
            id: string;
            /** @description 1 to 128 characters from A-Z a-z 0-9 . _ ~ - */
            campaignId: string;
            /**
             * Format: date-time
             * @description When the RSVP last changed: ISO-8601 with Z or an offset.
             */
            submittedAt: string;
            attendanceStatus: "YES" | "NO" | "MAYBE";
            /** @description By field key: a text, number, boolean or null, or a list of them. ipAddress, token and guestToken are dropped, never kept. */
            answers?: ({
                ipAddress?: (string | number | boolean | null) | (string | number | boolean | null)[];
                token?: (string | number | boolean | null) | (string | number | boolean | null)[];
                guestToken?: (string | number | boolean | null) | (string | number | boolean | null)[];
            } & {
                [key: string]: (string | number | boolean | null) | (string | number | boolean | null)[];
            }) | null;
            /** @description Raised by the source on every change of the row: a record not newer than the one held is skipped as stale. */
            version?: number | null;
            /** @constant */
            deleted?: false;
            /** @description Dropped: never stored, never served. */
            ipAddress?: string | null;
            /** @description Dropped: never stored, never served. */
            token?: string | null;
            /** @description Dropped: never stored, never served. */
            guestToken?: string | null;
        } | {
            /** @constant */
            type: "respondent";
            /** @description 1 to 128 characters from A-Z a-z 0-9 . _ ~ - */
            id: string;
            /**
             * @description Removes it.
             * @constant
             */
            deleted: true;
            /** @description Raised by the source on every change of the row: a record not newer than the one held is skipped as stale. */
            version?: number | null;
        }) | ({
            /** @constant */
            type: "deletion";
            /** @description 1 to 128 characters from A-Z a-z 0-9 . _ ~ - */
            respondentId: string;
            /** @description Raised by the source on every change of the row: a record not newer than the one held is skipped as stale. */
            version?: number | null;
        } | {
            /** @constant */
            type: "deletion";
            /** @description 1 to 128 characters from A-Z a-z 0-9 . _ ~ - */
            campaignId: string;
        });
        BatchAnswer: {
            applied: {
                campaigns: number;
                respondents: number;
                deletions: number;
            };
            /** @description Records skipped: not newer than the version held. */
            stale: number;
            /** @description Respondent records not applied because an operator erased the person: erase them at the source too, or send their deletion. The first 100. */
            keptErased: {
                count: number;
                records: {
                    line: string;
                    id: string;
                }[];
            };
            /** @description Records that answer questions their campaign does not have: applied, answers kept, named here by field key so the platform can mend its mapping. The first 100. */
            unknownAnswers: {
                count: number;
                records: {
                    line: string;
                    id: string;
                    fields: string[];
                }[];
            };
            /** Format: date-time */
            committedAt: string;
        };
        /** Error */
        ErrorEnvelope: {
            error: {
                /** @description A stable snake_case code, e.g. invalid_parameter. */
                code: string;
                /** @description What is wrong, in words; may change between releases. */
                message: string;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    sendBatch: {
        parameters: {
            query?: never;
            header: {
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description JSON Lines: one BatchLine a line, at most 1,000 records and 5 MB. */
        requestBody: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description Applied, or replayed (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchAnswer"];
                };
            };
            /** @description No Idempotency-Key, or one that is not 1 to 255 visible characters. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
            /** @description No token, or a malformed, unknown or revoked one. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
            /** @description The key was used in the last 24 hours for another body. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
            /** @description More than 1,000 records or 5 MB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
            /** @description Not application/x-ndjson, or a Content-Encoding. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
            /** @description Bad records, each named by its line; nothing was written. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
            /** @description Too many batches at once, or refused tokens; Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
            /** @description The database cannot be reached; Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A stable snake_case code, e.g. invalid_parameter. */
                            code: string;
                            /** @description What is wrong, in words; may change between releases. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
}
