// Typed failures of the runtime layer; the API maps them to status codes.

export class SandboxNotFound extends Error {
  constructor(readonly sandboxId: string) {
    super(`sandbox ${sandboxId} does not exist in the runtime`);
  }
}

export class SandboxAlreadyExists extends Error {
  constructor(readonly sandboxId: string) {
    super(`sandbox ${sandboxId} already exists in the runtime`);
  }
}

/** The sandbox exists but cannot run commands now (paused, or its processes died). */
export class SandboxNotRunning extends Error {
  constructor(
    readonly sandboxId: string,
    readonly state: 'paused' | 'stopped',
  ) {
    super(state === 'paused' ? `sandbox ${sandboxId} is paused` : `sandbox ${sandboxId} is not running`);
  }
}

export class TemplateNotReady extends Error {
  constructor(
    readonly template: string,
    readonly howToFix: string,
  ) {
    super(`template ${template} is not ready: ${howToFix}`);
  }
}

/** The runtime's command for this sandbox did not answer in time (runsc's control channel can be wedged from inside). */
export class RuntimeUnresponsive extends Error {
  constructor(
    readonly id: string,
    command: string,
  ) {
    super(`the runtime did not answer \`${command}\` for sandbox ${id} in time`);
  }
}
