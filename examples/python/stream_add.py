"""torch.cuda's stream example: add two tensors inside
``with clstream.stream(stream):`` (the addition runs on ``stream``),
record on that stream, wait, print.  Prints [6 6 6 6 6]."""

import clstream
from _skip import arrays

to_device = arrays()

stream = clstream.Stream()  # non-blocking, as torch's pool streams
t1 = to_device([2, 2, 2, 2, 2])
t2 = to_device([4, 4, 4, 4, 4])
stream.wait_stream(clstream.current_stream())  # the copies above first
with clstream.stream(stream):
    t1 = t1 + t2
    event = clstream.Event()
    event.record(stream)
event.synchronize()
print(t1.get())
