/** The slice of a pino logger the runtime uses; any structured logger fits. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: object): Logger;
}

export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};
