// What the nodes feature asks of other features; app.ts wires each to the feature that has it.
/** The sandbox directory: live sandboxes (creating, running, paused, restoring) on a server. */
export interface LiveSandboxes {
  liveOn(hostId: string): Promise<number>;
}

/** The sandbox service: moves every live sandbox of a lost node to `error` (reason `node_lost`) through the lifecycle; how many it moved. */
export interface LostSandboxes {
  declareLost(hostId: string): Promise<number>;
}

/** The sandbox service's restart reconcile: the runtime destroys the sandboxes the database no longer lists as live on this node. */
export interface SandboxReconcile {
  reconcile(): Promise<void>;
}

/** Billing's operators: who may list and drain nodes. */
export interface OperatorCheck {
  isOperator(accountId: string): Promise<boolean>;
}
