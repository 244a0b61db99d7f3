import type { ProtocolOf } from './contract.js';
/** A channel folder as the API shows it. */
export interface ChannelFolder {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  /** 0-indexed display position. */
  order: number;
  date_created: number | null;
  creator_id: number | null;
  is_archived: boolean;
}

export type FolderReplies = {
  'realm.channelFolders': ChannelFolder[];
  'realm.findChannelFolder': ChannelFolder;
  'realm.createChannelFolder': { channel_folder_id: number };
  'realm.updateChannelFolder': null;
  'realm.reorderChannelFolders': null;
};

/** The RealmActor's channel-folder commands; the edge renders descriptions, the realm checks permissions. */
export type FolderCommand =
  | { type: 'realm.channelFolders'; include_archived: boolean }
  | { type: 'realm.findChannelFolder'; folder_id: number }
  | {
      type: 'realm.createChannelFolder';
      actor_id: number;
      name: string;
      description: string;
      rendered_description: string;
    }
  | {
      type: 'realm.updateChannelFolder';
      actor_id: number;
      folder_id: number;
      name?: string;
      description?: string;
      rendered_description?: string;
      is_archived?: boolean;
    }
  | { type: 'realm.reorderChannelFolders'; actor_id: number; order: number[] };

export type FolderProtocol = ProtocolOf<FolderCommand, FolderReplies>;
