// How V8 manages the companion's heap once it serves. The flags are the
// process's: they hold for the QuickJS workers' heaps too (the process RSS is
// what bench/serverMemory.bench.ts and bench:scale measure).
import v8 from 'node:v8';

/**
 * How far the old generation may grow past what the last full collection kept alive before the next one starts.
 * Every full collection marks the whole live heap, so this growth decides what garbage costs: at 50 % a promoted
 * megabyte costs the marking of two live ones whatever the live heap's size (past a few MB, where V8's minimum
 * growth step stops mattering); under `--optimize-for-size` alone V8 grew it by 10 %, ten live megabytes marked
 * per promoted one, and a built companion serving Graph beta, GitHub, Stripe and Twilio (its main heap ~60 MB
 * live, against ~8 MB serving the demo alone) ran 20 clients' `execute`s at 0.8–0.9× the demo alone's rate, its
 * main thread and GC threads spending the difference collecting. At 50 % the two rates are the same and its RSS
 * stays under 300 MB; at 100 % it was no faster and larger (bench/README.md, issue 35).
 */
export const OLD_GENERATION_GROWTH_PERCENT = 50;

/**
 * A companion is a long-lived server: under a steady stream of calls V8's default heuristics grow the young
 * generation to 3 × 16 MB and let old-space garbage pile up to the next growth step, so RSS climbed from 176 to
 * 218 MB over 10,000 trivial executes while the live heap stayed near 28 MB (the soak's companion, run from the
 * checkout). `--optimize-for-size` keeps it flat (148 MB) for ~3 % fewer calls per second
 * (bench/serverMemory.bench.ts); on its own it also shrinks the old generation's growth to 10 %, which makes
 * garbage cost in proportion to the live heap (see OLD_GENERATION_GROWTH_PERCENT). V8 reads these flags as it
 * collects, so they take effect when set (the growth once the next full collection sets the old generation's
 * limit). They are set once the companion is built: start-up, which allocates a lot at once (a large document
 * parsed, or its catalogue and index restored from the cache), runs 2–2.5× slower under them.
 */
export function tuneHeapForServing(): void {
  v8.setFlagsFromString('--optimize-for-size');
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
}
