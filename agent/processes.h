// Background processes: the agent's `process-*` modes (see processes.c).
#ifndef PADDOCK_AGENT_PROCESSES_H
#define PADDOCK_AGENT_PROCESSES_H

/** Runs the mode named by argv[1] (process-start, -tail, -stdin, -signal, -list); its exit code. */
int process_main(int argc, char **argv);

#endif
