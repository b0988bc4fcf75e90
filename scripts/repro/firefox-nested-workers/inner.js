self.onmessage = () => self.postMessage('pong');
