"""Calculon's per-configuration rate on one problem, measured with Calculon's own search.

Calculon's `llm-optimal-execution` splits its search into one job per (tp, pp, interleaving,
recompute, optimizer sharding, TP communication type) and evaluates every execution of each job
(micro-batch, overlap modes, offloads, networks) in a process pool. Its full search of Llama 3 70B
on 256 GPUs holds 6.1 million executions (hours on two cores), so this runs every k-th of those
jobs, through the same OptimalExecution.search, and reports executions per second: every execution
is a full evaluation (one that does not fit memory fails after its time is computed).

usage: calculon_rate.py CALCULON_DIR APPLICATION.json GPUS MAX_BATCH SYSTEM.json STRIDE PROCESSES
"""
import multiprocessing
import sys
import time


def main():
    calculon_dir, application, gpus, batch, system, stride, processes = sys.argv[1:8]
    sys.path.insert(0, calculon_dir)
    import calculon
    from calculon.llm import Llm
    from calculon.llm.optimal_execution import OptimalExecution
    from calculon.system import System

    gpus, batch, stride, processes = int(gpus), int(batch), int(stride), int(processes)
    app = Llm.Application(calculon.io.read_json_file(application))
    syst = System(calculon.io.read_json_file(system))
    jobs = []
    for tp in Llm.get_all_tensor_parallelisms(gpus, app.hidden, app.attn_heads):
        for pp in Llm.get_all_pipeline_parallelisms(gpus, tp, app.num_blocks):
            dp = Llm.get_data_parallelism(gpus, tp, pp)
            batch_size = OptimalExecution.get_batch_size(dp, batch)
            if batch_size is None:
                continue
            for interleaving in Llm.get_valid_pipeline_interleavings(app.num_blocks, pp):
                for recompute in ('full', 'attn_only', 'none'):
                    for sharding in ((True, False) if dp > 1 else (False,)):
                        for tp_comm in ('ar', 'p2p_rs_ag', 'rs_ag'):
                            # The arguments of OptimalExecution.search, in its order: no debug, top 1,
                            # no layer stats; float16 (Calculon's name for 16-bit matrix math);
                            # fused activations; no MBS early exit; TP and DP overlap allowed.
                            jobs.append((False, 1, False, gpus, batch, 'float16', app, syst, tp, pp, dp,
                                         interleaving, batch_size, recompute, sharding, tp_comm, [True],
                                         False, True, True))
    sample = jobs[::stride]
    start = time.perf_counter()
    with multiprocessing.Pool(processes) as pool:
        results = pool.starmap(OptimalExecution.search, sample)
    seconds = time.perf_counter() - start
    executions = sum(r[1] for r in results)
    fitting = sum(r[2] for r in results)
    print(f'calculon: {len(sample)} of {len(jobs)} search jobs, {executions} executions ({fitting} fit memory) '
          f'in {seconds:.1f} s on {processes} processes: {executions / seconds:.0f} executions/s')


if __name__ == '__main__':
    main()
