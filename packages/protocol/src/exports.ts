import type { Principal } from './realm.js';
import type { ProtocolOf } from './contract.js';

/** The original's RealmExport types. */
export const EXPORT_PUBLIC = 1;
export const EXPORT_FULL_WITH_CONSENT = 2;

/** A data export as `GET /export/realm` and the `realm_export` event show it. */
export interface RealmExportJson {
  id: number;
  acting_user_id: number;
  /** Seconds, as the original's float timestamps. */
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
  export_type: number;
}

/**
 * Data exports: the RealmActor records each request (checking who may ask,
 * and the original's limit of five a week); the edge that asked writes the
 * file, page by page, and reports the outcome.
 */
export type ExportCommand =
  /**
   * `manual_export_from`: set by the edge when the organization is too large for an automatic
   * export (api exports/size.ts); the request is then refused, naming this address, once the
   * rate limit has let it through, as the original.
   */
  | { type: 'realm.requestExport'; actor: Principal; export_type: number; manual_export_from?: string }
  /** The file is written (`url`) or the export failed (`url` null). */
  | { type: 'realm.exportDone'; id: number; url: string | null }
  | { type: 'realm.exports'; viewer: Principal };

export type ExportReplies = {
  'realm.requestExport': { id: number };
  'realm.exportDone': null;
  'realm.exports': RealmExportJson[];
};

export type ExportProtocol = ProtocolOf<ExportCommand, ExportReplies>;
