"""torch.cuda's first Event example: double a tensor on the current
stream, record an event, wait for it, print the result.
Prints [ 2  4  6  8 10] (torch prints tensor([ 2,  4,  6,  8, 10]))."""

import clstream
from _skip import arrays

to_device = arrays()

t = to_device([1, 2, 3, 4, 5])
t = t * 2
event = clstream.Event()
event.record()
event.synchronize()
print(t.get())
