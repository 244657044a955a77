/**
 * Efí (formerly Gerencianet) as a profile over the BCB standard: tokens at `/oauth/token` under
 * the API's base URL, the standard's scopes plus `gn.pix.send.read` and `pix.send` for its sends,
 * the API Pix under `/v2`, the callback registered the standard way (`PUT /v2/webhook/{chave}`),
 * no extra header or query parameter, its "Envio de Pix" (`Sends.ts`) and its MED infractions
 * (`Infractions.ts`: `GET /v2/gn/infracoes` on a schedule, the answer as `.../defesa`).
 */
import * as Profile from "../Profile.js"
import { defaults } from "../Settings.js"
import * as Infractions from "./Infractions.js"
import * as Sends from "./Sends.js"

/** Efí's profile. */
export const profile: Profile.PspProfile = {
  ...Profile.standard,
  name: "efi",
  scopes: defaults.scopes,
  sends: Sends.make,
  infractions: Infractions.make
}
