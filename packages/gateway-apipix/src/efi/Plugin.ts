/**
 * The `efi` gateway plugin: the BCB's API Pix with Efí's profile (its sends), over Node's HTTP
 * client with the mTLS certificate. Its settings are the `PIXGATE_LIVE_*` variables
 * (`Settings.schema`), checked at start by `Check.check`; the callback is registered with
 * `PUT /v2/webhook/{chave}`. The standalone server's default gateway.
 */
import { GatewayPlugin } from "@pixgate/core"
import { Effect } from "effect"
import * as ApiPix from "../ApiPix.js"
import * as Check from "../Check.js"
import * as Profile from "../Profile.js"
import * as Settings from "../Settings.js"
import * as Efi from "./Efi.js"

/** The plugin (`PIXGATE_LIVE_GATEWAY=efi`). */
export const plugin: GatewayPlugin.GatewayPlugin<Settings.ApiPixSettings> = GatewayPlugin.make({
  name: "efi",
  description:
    "Efí: the Central Bank's API Pix (OAuth2, mTLS) for charges, refunds and reconciliation, Efí's own API for sends and MED infractions",
  capabilities: Profile.capabilities(Efi.profile),
  settings: Settings.schema,
  check: (settings, prefix) =>
    Effect.suspend(() => Check.check(settings, prefix === undefined ? "field" : { prefix })),
  layer: (settings) => ApiPix.layerNode(settings, Efi.profile),
  summary: (settings) => settings.baseUrl,
  registerCallback: (settings, url) =>
    ApiPix.registerWebhook(settings, url, Efi.profile).pipe(Effect.provide(ApiPix.httpClientNode(settings)))
})
