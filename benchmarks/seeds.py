"""How much EWT dev LAS moves with LIBLINEAR's random visiting order.

    python benchmarks/seeds.py [--shared ../shared] [--algorithm nivreeager] [--seeds 0,1,2]
                               [--setting marking_strategy=head]

Trains on EWT train.conllu (CoNLL-X, XPOS as POSTAG, the algorithm's default liblinear
feature model) once per solver seed and prints dev LAS/UAS over all tokens; for
nivreeager also with the tree constraint. Seed 0 is the default (MaltParser's).
Prints figures; it is not a test.
"""
import dataclasses
import statistics
import time

from _ewt import read_ewt, seeded_argument_parser


def main():
    a = seeded_argument_parser(__doc__).parse_args()
    train, dev = read_ewt(a.shared, "train"), read_ewt(a.shared, "dev")

    from maltpy.evaluation import evaluate
    from maltpy.learners import LEARNERS, LiblinearLearner
    from maltpy.parsing.parser import Parser

    settings = dict(kv.split("=", 1) for kv in a.setting)
    modes = (False, True) if a.algorithm == "nivreeager" else (False,)
    las = {mode: [] for mode in modes}
    print(f"{a.algorithm} {' '.join(a.setting)}")
    try:
        for seed in map(int, a.seeds.split(",")):
            # the learner registry builds learners from -lo options; this one differs only in its seed
            LEARNERS["liblinear"] = dataclasses.make_dataclass(
                "SeededLiblinear", [("random_state", int, dataclasses.field(default=seed))], bases=(LiblinearLearner,))
            t = time.perf_counter()
            parser = Parser(algorithm=a.algorithm, verbose=False, **settings).fit(train, "conllx")
            learn_s = time.perf_counter() - t
            line = [f"seed {seed:>3}  {parser.train_stats['instances']} instances  learning {learn_s:5.1f} s"]
            for mode in modes:
                parser.settings.enforce_tree = mode
                s = evaluate(dev, parser.parse(dev))["all"]
                las[mode].append(s.las)
                line.append(f"{'-nt true' if mode else 'LAS'} {s.las:.2f} (UAS {s.uas:.2f})")
            print("  ".join(line), flush=True)
    finally:
        LEARNERS["liblinear"] = LiblinearLearner
    for mode, values in las.items():
        if len(values) > 1:
            print(f"{'-nt true' if mode else 'LAS'}: mean {statistics.mean(values):.3f}, median "
                  f"{statistics.median(values):.2f}, range {min(values):.2f} - {max(values):.2f}")


if __name__ == "__main__":
    main()
