package io.runner.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs a few calls in parallel, each on its own virtual thread, under one deadline, and fails on the first
 * failure: the semantics of JDK 25's {@code StructuredTaskScope} with {@code Joiner.awaitAllSuccessfulOrThrow()}
 * and a timeout, written out on a virtual-thread executor because {@code StructuredTaskScope} is still a
 * preview API in JDK 25 (JEP 505): a class file that uses it loads only with {@code --enable-preview} on
 * exactly that JDK release, which would tie the jar to JDK 25 and to a launcher flag.
 * <p>
 * On the first failure, or when the deadline passes, the other calls are cancelled (interrupted: the JDK
 * HttpClient's blocking {@code send} aborts its exchange on interrupt) and not waited for, so a failed
 * fan-out takes no longer than its failing call.
 */
final class FanOut {

    /** One named call. */
    record Call<T>(String name, Callable<T> work) {
    }

    /** A call that failed, or did not finish before the deadline. */
    static final class Failed extends Exception {
        private final String name;

        Failed(String name, String reason) {
            super(reason, null, false, false);
            this.name = name;
        }

        /** Which call failed. */
        String callName() {
            return name;
        }
    }

    private FanOut() {
    }

    /**
     * Run every call; return their results in the calls' order.
     *
     * @param timeoutMillis the deadline of the whole fan-out
     * @throws Failed naming the first call that failed, or the first (in the calls' order) still running at the
     *                deadline
     */
    static <T> List<T> all(ExecutorService executor, List<Call<T>> calls, long timeoutMillis) throws Failed {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        CompletionService<T> completion = new ExecutorCompletionService<>(executor);
        List<Future<T>> futures = new ArrayList<>(calls.size());
        for (Call<T> call : calls) {
            futures.add(completion.submit(call.work()));
        }
        try {
            for (int done = 0; done < calls.size(); done++) {
                Future<T> next = completion.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (next == null) {
                    throw new Failed(firstRunning(calls, futures), "timeout after " + timeoutMillis + " ms");
                }
                try {
                    next.get();
                } catch (ExecutionException e) {
                    Call<T> failed = calls.get(futures.indexOf(next));
                    Throwable cause = e.getCause();
                    throw cause instanceof Failed f ? f : new Failed(failed.name(), String.valueOf(cause));
                }
            }
            List<T> results = new ArrayList<>(calls.size());
            for (Future<T> f : futures) {
                results.add(f.resultNow());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failed(firstRunning(calls, futures), "interrupted");
        } finally {
            for (Future<T> f : futures) {
                f.cancel(true); // no-op for the finished ones
            }
        }
    }

    private static <T> String firstRunning(List<Call<T>> calls, List<Future<T>> futures) {
        for (int i = 0; i < futures.size(); i++) {
            if (!futures.get(i).isDone()) {
                return calls.get(i).name();
            }
        }
        return calls.get(0).name();
    }
}
