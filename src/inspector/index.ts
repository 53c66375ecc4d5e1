// The inspector room: records every delivery a receiver sees into a bounded JSON-lines file (in
// the capture line format of `src/diagnose/capture.ts`) for `webhook-cms-receiver inspect`. Its
// public names reach users through `webhook-cms-receiver/testing`; the CLI imports this file.
export { createInspector, DEFAULT_INSPECTOR_FILE, type InspectorOptions, type InspectorRecord } from './inspector.js';
