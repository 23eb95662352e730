package io.runner.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The fan-out's structured-concurrency semantics: results in order, the first failure named and the other
 * calls cancelled (interrupted) rather than waited for, the deadline naming the call still running.
 * The bounds are wide (a busy 2-core host): a call that is not cancelled would take 30 s.
 */
class FanOutTest {
    private static final ExecutorService EXECUTOR = Executors.newVirtualThreadPerTaskExecutor();

    @AfterAll
    static void close() {
        EXECUTOR.shutdownNow();
    }

    @Test
    void resultsComeInTheCallsOrder() throws Exception {
        List<String> out = FanOut.all(EXECUTOR, List.of(
                new FanOut.Call<>("a", () -> { Thread.sleep(50); return "A"; }),
                new FanOut.Call<>("b", () -> "B")), 5_000);
        assertEquals(List.of("A", "B"), out);
    }

    @Test
    void firstFailureCancelsTheOthers() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        long start = System.nanoTime();
        FanOut.Failed failed = assertThrows(FanOut.Failed.class, () -> FanOut.all(EXECUTOR, List.of(
                new FanOut.Call<String>("slow", () -> {
                    try {
                        Thread.sleep(30_000);
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                    return "late";
                }),
                new FanOut.Call<String>("orders", () -> {
                    throw new FanOut.Failed("orders", "status 500");
                })), 60_000));
        assertEquals("orders", failed.callName());
        assertEquals("status 500", failed.getMessage());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 15_000, "did not wait for the slow call");
        assertTrue(interrupted.await(15, TimeUnit.SECONDS), "the slow call was interrupted");
    }

    @Test
    void deadlineNamesTheCallStillRunning() {
        FanOut.Failed failed = assertThrows(FanOut.Failed.class, () -> FanOut.all(EXECUTOR, List.of(
                new FanOut.Call<>("profile", () -> { Thread.sleep(30_000); return "late"; }),
                new FanOut.Call<>("orders", () -> "ok")), 100));
        assertEquals("profile", failed.callName());
        assertEquals("timeout after 100 ms", failed.getMessage());
    }

    @Test
    void anUnexpectedExceptionNamesItsCall() {
        FanOut.Failed failed = assertThrows(FanOut.Failed.class, () -> FanOut.all(EXECUTOR, List.of(
                new FanOut.Call<String>("recommendations", () -> { throw new IllegalStateException("boom"); })),
                5_000));
        assertEquals("recommendations", failed.callName());
        assertTrue(failed.getMessage().contains("boom"));
    }
}
