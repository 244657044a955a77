/**
 * How a PSP is called where the BCB standard leaves it open, and the standard's own answer: the
 * token endpoint of its OpenAPI (`/oauth/token` under the API's URL) and the scopes of what the
 * gateway uses.
 */

/**
 * How a PSP is called where the standard leaves it open: where tokens are issued (a path under
 * the base URL, or an absolute URL when the PSP issues them elsewhere), the scopes asked for when
 * the settings name none, and the headers and query parameters it wants on every API call.
 */
export interface Connection {
  readonly tokenPath: string
  readonly scopes: ReadonlyArray<string>
  readonly headers?: Readonly<Record<string, string>>
  readonly query?: Readonly<Record<string, string>>
}

/** The scopes of the BCB standard this gateway uses: charges of both kinds, PIX, the webhook. */
export const standardScopes: ReadonlyArray<string> = [
  "cob.write",
  "cob.read",
  "cobv.write",
  "cobv.read",
  "pix.write",
  "pix.read",
  "webhook.write",
  "webhook.read"
]

/** The standard's own way: `/oauth/token` under the base URL (the OpenAPI's `tokenUrl`), its scopes. */
export const standardConnection: Connection = { tokenPath: "/oauth/token", scopes: standardScopes }
