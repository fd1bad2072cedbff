// The preview's view of the ports it routes to; the ports feature's detector keeps it in memory.
/** A port the detector saw listening; the proxy's view of it (a new password is written into the same object). */
export interface LivePort {
  protocol: string;
  passwordHash: string | null;
}

/** What the proxy routes by, kept in memory by the ports feature's detector so a request costs no query. */
export interface LivePorts {
  sandbox(id: string): { ip: string | null } | undefined;
  port(sandboxId: string, port: number): LivePort | undefined;
  /** `listener` runs after every change of the view. */
  onChange(listener: () => void): void;
}
