"""A user stream-allocation strategy: every fork's extra branches open new
streams (round robin over the budget), every other op continues the stream of
its first producer no other op has continued yet; labels keep their streams."""


def fork_streams(problem) -> list[int]:
    """The stream of each op of ``problem`` (a geir StrategyProblem), in op order."""
    label_stream: dict[str, int] = {}
    for label in problem.labels:
        if label is not None and label not in label_stream:
            label_stream[label] = problem.max_streams + len(label_stream)
    streams: list[int] = []
    continued: set[int] = set()  # producers whose stream a consumer already took
    opened = 0
    for i in range(problem.n):
        if problem.labels[i] is not None:
            streams.append(label_stream[problem.labels[i]])
            continue
        free = [p for p in problem.preds[i] if p not in continued and problem.labels[p] is None]
        if free:
            continued.add(free[0])
            streams.append(streams[free[0]])
        else:
            streams.append(opened % problem.max_streams)
            opened += 1
    return streams
