// `node --import <this file>`: appends the URL of every file module the process loads to $LOADED_MODULES_LOG.
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));
