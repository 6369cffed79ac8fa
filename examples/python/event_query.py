"""torch.cuda's query example: query before synchronize (False) and
after (True), then the tripled tensor.  The False is deterministic: a
host function holds the stream until the query has been printed.
Prints False, True, [ 3  6  9 12 15]."""

import threading

import clstream
from _skip import arrays

to_device = arrays()

gate = threading.Event()  # the host function waits for it
stream = clstream.Stream()
t = to_device([1, 2, 3, 4, 5])
stream.wait_stream(clstream.current_stream())
stream.launch_host_func(gate.wait)  # runs on a Python thread, in order
with clstream.stream(stream):
    t = t * 3
    event = clstream.Event()
    event.record()
print(event.query())  # False: the stream is held
gate.set()
event.synchronize()
print(event.query())  # True
print(t.get())
