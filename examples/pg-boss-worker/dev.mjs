// Local development: the receiver and one worker in this one process (`npm run dev`). In
// production run them apart: `npm run receiver`, and `npm run worker` as many times as you like.
await import('./worker.mjs');
await import('./receiver.mjs');
