/**
 * What the panel's team pages need beyond `PanelStore`: removing a user (their sessions end in
 * the same unit) and each user's last sign-in (read from the audit log, migration 0021's index).
 */
import { Context, type Effect } from "effect"
import type { MerchantId } from "../domain/Domain.js"
import type { StoreError } from "./Store.js"

/** The team's operations, each one atomic unit. */
export interface TeamStoreShape {
  /**
   * Removes a panel user of `merchantId` with everything that lets them in: sessions (ended at
   * once), invite and reset links, second factor and recovery codes, notification choices. The
   * audit log keeps their entries. False when no such user of that merchant exists.
   */
  readonly removePanelUser: (merchantId: MerchantId, userId: string) => Effect.Effect<boolean, StoreError>
  /** Each user's last successful sign-in (`signin.success` in the audit log), by user id. */
  readonly lastSignIns: (merchantId: MerchantId) => Effect.Effect<ReadonlyMap<string, number>, StoreError>
}

/** The team's operations (`TeamStoreShape`). */
export class TeamStore extends Context.Tag("@pixgate/core/Store/TeamStore")<TeamStore, TeamStoreShape>() {}
