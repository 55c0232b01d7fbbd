// The native addon behind the kernel lock, in a module of its own so that lock.ts can load it on first use (the
// bundled CLI then requires it from node_modules only when a command writes).
import native from "fs-native-extensions"

export const addon = native
