/** Blobs by path: uploads and avatars. */
export interface FileStat {
  size: number;
  contentType: string;
}

export interface FileStore {
  /** Stores the whole stream under `path`; visible only once complete. */
  put(path: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<FileStat>;
  stat(path: string): Promise<FileStat | undefined>;
  /** The file's bytes, or undefined when there is no such file. */
  get(path: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  delete(path: string): Promise<void>;
  close(): Promise<void>;
}
